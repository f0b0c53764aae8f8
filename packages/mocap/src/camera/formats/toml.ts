/**
 * A small TOML reader for calibration files: [tables] (and [a.b] dotted names), key = value with
 * strings, numbers, booleans and (nested, multi-line) arrays, # comments. Enough for Pose2Sim's
 * Calib.toml; not a general TOML implementation (no inline tables, dates or array-of-tables).
 */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };

export function parseToml(text: string): Record<string, TomlValue> {
  const root: Record<string, TomlValue> = {};
  let table: Record<string, TomlValue> = root;
  let i = 0;
  const n = text.length;
  const error = (message: string): never => {
    const lineNo = text.slice(0, i).split('\n').length;
    throw new Error(`TOML line ${lineNo}: ${message}`);
  };
  const skipSpace = (newlines: boolean) => {
    while (i < n) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\r' || (newlines && c === '\n')) i++;
      else if (c === '#') while (i < n && text[i] !== '\n') i++;
      else break;
    }
  };
  const parseKey = (): string => {
    skipSpace(false);
    if (text[i] === '"' || text[i] === "'") return parseString();
    const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 200));
    if (!m) error('expected a key');
    i += m![0].length;
    return m![0];
  };
  const parseString = (): string => {
    const quote = text[i++];
    let out = '';
    while (i < n && text[i] !== quote) {
      if (quote === '"' && text[i] === '\\') {
        const e = text[i + 1];
        const map: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', r: '\r' };
        if (e === 'u') {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        out += map[e] ?? e;
        i += 2;
      } else out += text[i++];
    }
    if (text[i] !== quote) error('unterminated string');
    i++;
    return out;
  };
  const parseValue = (): TomlValue => {
    skipSpace(false);
    const c = text[i];
    if (c === '"' || c === "'") return parseString();
    if (c === '[') {
      i++;
      const items: TomlValue[] = [];
      for (;;) {
        skipSpace(true);
        if (text[i] === ']') {
          i++;
          return items;
        }
        items.push(parseValue());
        skipSpace(true);
        if (text[i] === ',') i++;
        else if (text[i] !== ']') error('expected , or ] in array');
      }
    }
    const m = /^[^\s,\]#]+/.exec(text.slice(i, i + 400));
    if (!m) error('expected a value');
    i += m![0].length;
    const raw = m![0];
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    const special: Record<string, number> = {
      inf: Infinity,
      '+inf': Infinity,
      '-inf': -Infinity,
      nan: NaN,
      '+nan': NaN,
      '-nan': NaN,
    };
    if (raw in special) return special[raw];
    const num = Number(raw.replace(/_/g, ''));
    if (Number.isNaN(num)) error(`cannot read value "${raw}"`);
    return num;
  };
  while (i < n) {
    skipSpace(true);
    if (i >= n) break;
    if (text[i] === '[') {
      i++;
      const path: string[] = [];
      for (;;) {
        path.push(parseKey());
        skipSpace(false);
        if (text[i] === '.') i++;
        else break;
      }
      if (text[i] !== ']') error('expected ] after table name');
      i++;
      table = root;
      for (const part of path) {
        const next = table[part];
        if (next === undefined) table[part] = {};
        else if (typeof next !== 'object' || Array.isArray(next)) error(`"${part}" is not a table`);
        table = table[part] as Record<string, TomlValue>;
      }
      continue;
    }
    const key = parseKey();
    skipSpace(false);
    if (text[i] !== '=') error(`expected = after key "${key}"`);
    i++;
    table[key] = parseValue();
    skipSpace(false);
    if (i < n && text[i] !== '\n') error('expected end of line');
  }
  return root;
}
