import { XMLParser } from 'fast-xml-parser';

/** An element of an OpenSim XML document: name, attributes, child elements in order, own text. */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

type OrderedEntry = Record<string, unknown> & { ':@'?: Record<string, string> };

function toNode(entry: OrderedEntry): XmlNode | undefined {
  const name = Object.keys(entry).find((key) => key !== ':@');
  if (!name || name === '#text' || name.startsWith('?')) return undefined;
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry[':@'] ?? {})) attributes[key.replace(/^@_/, '')] = String(value);
  const children: XmlNode[] = [];
  let text = '';
  for (const child of entry[name] as OrderedEntry[]) {
    if ('#text' in child) text += String(child['#text']);
    else {
      const node = toNode(child);
      if (node) children.push(node);
    }
  }
  return { name, attributes, children, text: text.trim() };
}

/** Parses XML into a tree of elements (comments dropped, values kept as text, no entity expansion beyond XML's own). */
export function parseXmlTree(text: string): XmlNode {
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    processEntities: true,
    htmlEntities: false,
  });
  const entries = parser.parse(text) as OrderedEntry[];
  for (const entry of entries) {
    const node = toNode(entry);
    if (node) return node;
  }
  throw new Error('The XML document has no root element.');
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

/** Whitespace-separated numbers of a child element (e.g. "<location>0 0.1 0</location>"). */
export function childNumbers(node: XmlNode, name: string): number[] | undefined {
  const text = childText(node, name);
  if (text === undefined) return undefined;
  return text
    .split(/\s+/)
    .filter((cell) => cell !== '')
    .map(parseOpenSimNumber);
}

/** OpenSim writes infinities as "Inf"/"-Inf" and booleans as "true"/"false". */
export function parseOpenSimNumber(text: string): number {
  const lower = text.trim().toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity') return Number.POSITIVE_INFINITY;
  if (lower === '-inf' || lower === '-infinity') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return Number(lower);
}

export function childBoolean(node: XmlNode, name: string): boolean | undefined {
  const text = childText(node, name);
  return text === undefined ? undefined : text.trim().toLowerCase() === 'true';
}
