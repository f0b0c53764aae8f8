/**
 * A Python pickle (protocol 2) of a dict of str → int, the shape of OpenCap's mappingCamDevice.pickle
 * (opencap-processing reads it with pickle.load). Opcodes from CPython's Lib/pickletools.py: PROTO 2,
 * EMPTY_DICT, MARK, then per item BINUNICODE (4-byte little-endian length, UTF-8) and BININT1 / BININT2
 * / BININT (unsigned 1 and 2 bytes, signed 4 bytes), SETITEMS, STOP.
 */
export function pickleStringIntDict(entries: Record<string, number>): Buffer {
  const parts: Buffer[] = [Buffer.from([0x80, 2, 0x7d])]; // PROTO 2, EMPTY_DICT '}'
  const items = Object.entries(entries);
  if (items.length > 0) parts.push(Buffer.from('('));
  for (const [key, value] of items) {
    if (!Number.isSafeInteger(value) || value < -(2 ** 31) || value >= 2 ** 31)
      throw new RangeError(`${value} is not a 32-bit int`);
    const text = Buffer.from(key, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(text.length);
    parts.push(Buffer.from('X'), length, text);
    if (value >= 0 && value < 0x100)
      parts.push(Buffer.from([0x4b, value])); // BININT1 'K'
    else if (value >= 0 && value < 0x10000) {
      const int = Buffer.alloc(3);
      int.writeUInt8(0x4d); // BININT2 'M'
      int.writeUInt16LE(value, 1);
      parts.push(int);
    } else {
      const int = Buffer.alloc(5);
      int.writeUInt8(0x4a); // BININT 'J'
      int.writeInt32LE(value, 1);
      parts.push(int);
    }
  }
  if (items.length > 0) parts.push(Buffer.from('u')); // SETITEMS
  parts.push(Buffer.from('.')); // STOP
  return Buffer.concat(parts);
}
