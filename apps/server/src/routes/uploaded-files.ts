import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { messages } from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import type { UploadedFile } from '../services/calibration-import-service.ts';

/**
 * Saves a multipart request's files named `fileField` to a temporary folder, hands them with the
 * text fields (trimmed) to `use`, and removes the folder afterwards whatever happens.
 *
 * The parts are read here rather than with multipart's saveRequestFiles, which logs every refused
 * upload (a file over the limit: the client's 413) as a server error, and then fails to delete the
 * files this folder took with it.
 */
export async function withUploadedFiles<T>(
  request: FastifyRequest,
  fileField: string,
  limits: { fileSize: number; files: number; fields: number },
  use: (files: UploadedFile[], fields: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!request.isMultipart()) throw invalidFields({ [fileField]: [messages.required] });
  const directory = await mkdtemp(join(tmpdir(), 'kinetrace-upload-'));
  try {
    const uploads: UploadedFile[] = [];
    const fields: Record<string, string> = {};
    for await (const part of request.parts({ limits })) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value.trim();
      } else if (part.fieldname === fileField) {
        // Named by position (the client's name may be anything), keeping a plain extension for readers that look at it.
        const extension = extname(part.filename);
        const path = join(directory, `${uploads.length}${/^\.[A-Za-z0-9]{1,10}$/.test(extension) ? extension : ''}`);
        await pipeline(part.file, createWriteStream(path));
        uploads.push({ fileName: part.filename, path });
      } else {
        part.file.resume();
      }
    }
    return await use(uploads, fields);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
