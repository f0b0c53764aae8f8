import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyRequest } from 'fastify';
import { messages } from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import type { UploadedFile } from '../services/calibration-import-service.ts';

/**
 * Saves a multipart request's files named `fileField` to a temporary folder, hands them with the
 * text fields (trimmed) to `use`, and removes them afterwards whatever happens.
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
    const { files, values } = await request.saveRequestFiles({ tmpdir: directory, limits });
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) {
      const raw = typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : value;
      if (typeof raw === 'string') fields[name] = raw.trim();
    }
    const uploads = files.filter((file) => file.fieldname === fileField).map((file) => ({ fileName: file.filename, path: file.filepath }));
    return await use(uploads, fields);
  } finally {
    // multipart deletes the files it saved once the response is sent; they go now with their
    // folder, so it is told there is nothing left (else it logs every upload as a failed delete).
    request.tmpUploads = null;
    await rm(directory, { recursive: true, force: true });
  }
}
