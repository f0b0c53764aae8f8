/**
 * A tiny reader for the flat, attribute-only XML of camera calibration files (Qualisys .qca.txt).
 * It does not build a tree: it lists elements by name, each with its attributes, in file order.
 * No entity expansion beyond the five predefined ones, no DTDs: safe on any input.
 */
import { refuseUnsafeKey } from '../../formats/unsafe-keys.ts';

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** Character offset of the element's start tag in the text. */
  offset: number;
}

/** A camera is five elements, so this is 2,000 cameras: past it a file is not a calibration (issue 20's hostile files). */
export const MAX_XML_ELEMENTS = 10_000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (match, entity: string) => {
    if (entity[0] === '#') {
      const code =
        entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return Number.isFinite(code) ? String.fromCodePoint(code) : match;
    }
    return ENTITIES[entity.toLowerCase()] ?? match;
  });
}

/**
 * The text with each comment blanked out (same length, so offsets stay), in one pass: a lazy regex
 * rescanned the rest of the text from every `<!--` of an unclosed comment (issue 20: a 160 KB file
 * held the server 3.6 s). A comment that is never closed is an error, as XML has it.
 */
function blankComments(text: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let start = text.indexOf('<!--'); start >= 0; start = text.indexOf('<!--', from)) {
    const end = text.indexOf('-->', start + 4);
    if (end < 0) throw new Error(`XML: the comment at character ${start} is never closed with -->`);
    parts.push(text.slice(from, start), ' '.repeat(end + 3 - start));
    from = end + 3;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** Every start (or self-closing) tag in document order, with its attributes. */
export function xmlElements(text: string): XmlElement[] {
  const elements: XmlElement[] = [];
  const withoutComments = blankComments(text);
  const tagPattern = /<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/g;
  const attributePattern = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (let match = tagPattern.exec(withoutComments); match; match = tagPattern.exec(withoutComments)) {
    // No prototype: a file's attribute names never reach Object.prototype, nor read from it.
    const attributes = Object.create(null) as Record<string, string>;
    const attributeText = match[2] ?? '';
    for (let a = attributePattern.exec(attributeText); a; a = attributePattern.exec(attributeText)) {
      refuseUnsafeKey(a[1], `XML element <${match[1]}>`);
      attributes[a[1]] = decodeEntities(a[2] ?? a[3] ?? '');
    }
    if (elements.length === MAX_XML_ELEMENTS) throw new Error(`XML: more than ${MAX_XML_ELEMENTS} elements`);
    elements.push({ name: match[1], attributes, offset: match.index });
  }
  return elements;
}
