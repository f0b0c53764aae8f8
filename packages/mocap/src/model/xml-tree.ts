import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { refuseUnsafeKey } from '../formats/unsafe-keys.ts';

/** An element of an OpenSim XML document: name, attributes, child elements in order, own text. */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/**
 * A whole XML document kept as fast-xml-parser's ordered form (every element, comment and text
 * in document order), with the element tree `root` read from it. Edits through `setText`,
 * `appendChild` and `removeChild` change both, so `serializeXml` writes the document back with
 * everything it held: what a program does not understand is copied through untouched.
 */
export interface XmlDocument {
  root: XmlNode;
  entries: OrderedEntry[];
}

type OrderedEntry = Record<string, unknown> & { ':@'?: Record<string, string> };

const OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  commentPropName: '#comment',
  processEntities: true,
  htmlEntities: false,
} as const;

/** The ordered entry each node was read from, so edits reach the document that is written back. */
const entryOf = new WeakMap<XmlNode, OrderedEntry>();

function tagOf(entry: OrderedEntry): string | undefined {
  return Object.keys(entry).find((key) => key !== ':@');
}

function toNode(entry: OrderedEntry): XmlNode | undefined {
  const name = tagOf(entry);
  if (!name || name === '#text' || name === '#comment' || name.startsWith('?')) return undefined;
  // No prototype, and no __proto__/constructor/prototype attribute: a file's names never reach Object.prototype.
  const attributes = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(entry[':@'] ?? {})) {
    const attribute = key.replace(/^@_/, '');
    refuseUnsafeKey(attribute, `XML element <${name}>`);
    attributes[attribute] = String(value);
  }
  const children: XmlNode[] = [];
  let text = '';
  for (const child of entry[name] as OrderedEntry[]) {
    if ('#text' in child) text += String(child['#text']);
    else {
      const node = toNode(child);
      if (node) children.push(node);
    }
  }
  const node: XmlNode = { name, attributes, children, text: text.trim() };
  entryOf.set(node, entry);
  return node;
}

/** Parses an XML document, keeping everything (comments, order) for writing it back. */
export function parseXmlDocument(text: string): XmlDocument {
  const entries = new XMLParser(OPTIONS).parse(text) as OrderedEntry[];
  for (const entry of entries) {
    const root = toNode(entry);
    if (root) return { root, entries };
  }
  throw new Error('The XML document has no root element.');
}

/** An independent copy of a document, to edit without touching the original. */
export function cloneXmlDocument(document: XmlDocument): XmlDocument {
  const entries = structuredClone(document.entries);
  for (const entry of entries) {
    const root = toNode(entry);
    if (root) return { root, entries };
  }
  throw new Error('The XML document has no root element.');
}

/** Parses XML into a tree of elements (comments dropped, values kept as text, no entity expansion beyond XML's own). */
export function parseXmlTree(text: string): XmlNode {
  return parseXmlDocument(text).root;
}

/** The document as text, indented with tabs like OpenSim's own files. */
export function serializeXml(document: XmlDocument): string {
  const builder = new XMLBuilder({ ...OPTIONS, format: true, indentBy: '\t', suppressEmptyNode: true });
  return `${(builder.build(document.entries) as string).trim()}\n`;
}

function entry(node: XmlNode): OrderedEntry {
  const found = entryOf.get(node);
  if (!found) throw new Error(`<${node.name}> is not part of a parsed document.`);
  return found;
}

/** Replaces an element's text (its only text: OpenSim values are leaf elements). */
export function setText(node: XmlNode, text: string): void {
  const content = entry(node)[node.name] as OrderedEntry[];
  const kept = content.filter((child) => !('#text' in child));
  content.splice(0, content.length, ...(text === '' ? [] : [{ '#text': text }]), ...kept);
  node.text = text;
}

/** Appends `child` (an element of this or another parsed document) as the last child of `parent`. */
export function appendChild(parent: XmlNode, child: XmlNode): void {
  (entry(parent)[parent.name] as OrderedEntry[]).push(entry(child));
  parent.children.push(child);
}

/** A new element (not yet in a document; place it with appendChild): leaf text or child elements. */
export function createElement(name: string, attributes: Record<string, string>, content: string | XmlNode[]): XmlNode {
  const children = typeof content === 'string' ? [] : content;
  const raw: OrderedEntry = {
    [name]: typeof content === 'string' ? (content === '' ? [] : [{ '#text': content }]) : children.map(entry),
  };
  if (Object.keys(attributes).length > 0)
    raw[':@'] = Object.fromEntries(Object.entries(attributes).map(([key, value]) => [`@_${key}`, value]));
  const node: XmlNode = {
    name,
    attributes: { ...attributes },
    children,
    text: typeof content === 'string' ? content : '',
  };
  entryOf.set(node, raw);
  return node;
}

/** Removes `child` from `parent`, with the comment right before it (OpenSim's description of the element). */
export function removeChild(parent: XmlNode, child: XmlNode): void {
  const content = entry(parent)[parent.name] as OrderedEntry[];
  const at = content.indexOf(entry(child));
  if (at < 0) throw new Error(`<${child.name}> is not a child of <${parent.name}>.`);
  const start = at > 0 && tagOf(content[at - 1]) === '#comment' ? at - 1 : at;
  content.splice(start, at - start + 1);
  parent.children.splice(parent.children.indexOf(child), 1);
}

export function childNamed(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((child) => child.name === name);
}

export function childrenNamed(node: XmlNode, name: string): XmlNode[] {
  return node.children.filter((child) => child.name === name);
}

/** Every descendant (depth first, document order) whose element name satisfies the test. */
export function descendants(node: XmlNode, test: (child: XmlNode) => boolean, out: XmlNode[] = []): XmlNode[] {
  for (const child of node.children) {
    if (test(child)) out.push(child);
    descendants(child, test, out);
  }
  return out;
}

export function childText(node: XmlNode, name: string): string | undefined {
  return childNamed(node, name)?.text;
}

/** Whitespace-separated numbers of an element's text (e.g. "0 0.1 0"). */
export function numbersOf(text: string): number[] {
  return text
    .split(/\s+/)
    .filter((cell) => cell !== '')
    .map(parseOpenSimNumber);
}

/** Whitespace-separated numbers of a child element (e.g. "<location>0 0.1 0</location>"). */
export function childNumbers(node: XmlNode, name: string): number[] | undefined {
  const text = childText(node, name);
  return text === undefined ? undefined : numbersOf(text);
}

/** OpenSim writes infinities as "Inf"/"-Inf" and booleans as "true"/"false". */
export function parseOpenSimNumber(text: string): number {
  const lower = text.trim().toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return Number(lower);
}

/** Numbers as OpenSim reads them back: the shortest text that is the same double, Inf for infinities. */
export function formatOpenSimNumbers(values: ArrayLike<number>): string {
  return Array.from(values, (value) => {
    if (value === Number.POSITIVE_INFINITY) return 'Inf';
    if (value === Number.NEGATIVE_INFINITY) return '-Inf';
    return Object.is(value, -0) ? '0' : String(value);
  }).join(' ');
}

export function childBoolean(node: XmlNode, name: string): boolean | undefined {
  const text = childText(node, name);
  return text === undefined ? undefined : text.trim().toLowerCase() === 'true';
}
