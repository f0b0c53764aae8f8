import { crc32 } from 'node:zlib';

/**
 * A PNG file (8-bit RGB, no interlace) whose header says `width` x `height`, with `compressedRows` as its
 * one IDAT chunk: real pictures for the tests, or a header that promises far more pixels than it holds.
 */
export function pngFile(width: number, height: number, compressedRows: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typeAndData));
    return Buffer.concat([length, typeAndData, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, adaptive filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', compressedRows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
