// archiver 8 is ESM and ships no types; this declares the part Kinetrace uses.
declare module 'archiver' {
  import type { Readable, Transform } from 'node:stream';

  export interface EntryData {
    name: string;
    /** Store without compression. */
    store?: boolean;
    date?: Date;
  }

  export class ZipArchive extends Transform {
    constructor(options?: { zlib?: { level?: number }; forceZip64?: boolean; store?: boolean });
    append(source: Readable | Buffer | string, data: EntryData): this;
    finalize(): Promise<void>;
    pointer(): number;
  }
}
