import type { Readable } from 'node:stream';
import type { MetadataValue, S3Store } from '@tus/s3-store';

/**
 * tus's S3 store, except that an upload's tail shorter than a part (`<id>.part`, all of a short video until
 * its last PATCH) stays in the bucket while a PATCH runs. tus's store deletes the tail as a PATCH begins and
 * holds it, with the PATCH's bytes, in a file on the server's own disk until they make a part or a new tail:
 * a server killed mid-PATCH took every byte since the upload's last part with it, and the phone, resuming
 * against another server, found offset 0. Here the tail is deleted just before the first part holding its
 * bytes is uploaded (a new tail replaces it in one PUT), so the offset any server reads (the parts plus the
 * tail) never counts a byte twice and keeps every PATCH that ended; a server killed mid-PATCH loses only
 * that PATCH's bytes not yet in a part, which the phone sends again.
 *
 * Made from tus's class as loaded (s3-storage.ts loads the AWS SDK only for a server with a bucket).
 */
export function tailKeepingS3Store(TusS3Store: typeof S3Store) {
  return class TailKeepingS3Store extends TusS3Store {
    /**
     * Uploads whose tail a running PATCH has read: null until a part of that PATCH deletes it, then the
     * deletion. One PATCH an upload at a time (tus's lock).
     */
    private readonly takenTails = new Map<string, Promise<void> | null>();

    override async write(src: Readable, id: string, offset: number): Promise<number> {
      try {
        return await super.write(src, id, offset);
      } finally {
        this.takenTails.delete(id);
      }
    }

    /** tus's write calls this once it has read the tail: the deletion waits for the tail's first part. */
    protected override async deleteIncompletePart(id: string): Promise<void> {
      this.takenTails.set(id, null);
    }

    protected override async uploadPart(metadata: MetadataValue, body: Readable | Buffer, partNumber: number) {
      const id = metadata.file.id;
      if (this.takenTails.has(id)) {
        let deletion = this.takenTails.get(id);
        if (!deletion) this.takenTails.set(id, (deletion = super.deleteIncompletePart(id)));
        await deletion;
      }
      return super.uploadPart(metadata, body, partNumber);
    }

    protected override async uploadIncompletePart(id: string, body: Readable): Promise<string> {
      // The PATCH's last chunk: after its parts' deletion of the old tail (a late DELETE would remove this one).
      await this.takenTails.get(id);
      this.takenTails.delete(id);
      return super.uploadIncompletePart(id, body);
    }
  };
}
