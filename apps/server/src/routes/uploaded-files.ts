import { createWriteStream } from 'node:fs';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { messages } from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import type { UploadedFile } from '../services/calibration-import-service.ts';

/**
 * Saves a multipart request's files named `fileField` (or any of several names, each file's
 * `field` saying which) into `directory` (the request's own staging
 * folder, services/import-staging.ts, which removes it afterwards) and hands them with the text fields
 * (trimmed) to `use`.
 *
 * The parts are read here rather than with multipart's saveRequestFiles, which logs every refused
 * upload (a file over the limit: the client's 413) as a server error, and then fails to delete the
 * files this folder took with it.
 */
export async function withUploadedFiles<T>(
  request: FastifyRequest,
  fileField: string | readonly string[],
  limits: { fileSize: number; files: number; fields: number },
  directory: string,
  use: (files: UploadedFile[], fields: Record<string, string>) => Promise<T>,
): Promise<T> {
  const fileFields: readonly string[] = typeof fileField === 'string' ? [fileField] : fileField;
  if (!request.isMultipart()) throw invalidFields({ [fileFields[0]]: [messages.required] });
  const uploads: UploadedFile[] = [];
  // No prototype: a field named __proto__ or constructor is a field like any other.
  const fields = Object.create(null) as Record<string, string>;
  for await (const part of request.parts({ limits })) {
    if (part.type === 'field') {
      if (typeof part.value === 'string') fields[part.fieldname] = part.value.trim();
    } else if (fileFields.includes(part.fieldname)) {
      // Named by position (the client's name may be anything), keeping a plain extension for readers that look at it.
      const extension = extname(part.filename);
      const path = join(directory, `${uploads.length}${/^\.[A-Za-z0-9]{1,10}$/.test(extension) ? extension : ''}`);
      await pipeline(part.file, createWriteStream(path));
      uploads.push({ fileName: part.filename, path, field: part.fieldname });
    } else {
      part.file.resume();
    }
  }
  return await use(uploads, fields);
}
