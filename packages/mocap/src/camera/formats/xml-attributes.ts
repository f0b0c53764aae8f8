/**
 * A tiny reader for the flat, attribute-only XML of camera calibration files (Qualisys .qca.txt).
 * It does not build a tree: it lists elements by name, each with its attributes, in file order.
 * No entity expansion beyond the five predefined ones, no DTDs: safe on any input.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  /** Character offset of the element's start tag in the text. */
  offset: number;
}

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

/** Every start (or self-closing) tag in document order, with its attributes. */
export function xmlElements(text: string): XmlElement[] {
  const elements: XmlElement[] = [];
  const withoutComments = text.replace(/<!--[\s\S]*?-->/g, (comment) => ' '.repeat(comment.length));
  const tagPattern = /<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*\/?>/g;
  const attributePattern = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
  for (let match = tagPattern.exec(withoutComments); match; match = tagPattern.exec(withoutComments)) {
    const attributes: Record<string, string> = {};
    const attributeText = match[2] ?? '';
    for (let a = attributePattern.exec(attributeText); a; a = attributePattern.exec(attributeText)) {
      attributes[a[1]] = decodeEntities(a[2] ?? a[3] ?? '');
    }
    elements.push({ name: match[1], attributes, offset: match.index });
  }
  return elements;
}
