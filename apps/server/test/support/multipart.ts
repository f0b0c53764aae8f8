/** A part of a multipart request: a text field, or a file (any bytes) under a field name. */
export type MultipartPart =
  { field: string; value: string } | { field: string; fileName: string; bytes: Buffer | string };

const BOUNDARY = 'kinetrace-test-boundary-7c1f';

/** The body and content type of a multipart/form-data request, for `app.inject`. */
export function multipart(parts: MultipartPart[]): { payload: Buffer; headers: { 'content-type': string } } {
  const chunks = parts.flatMap((part) =>
    'value' in part
      ? [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"\r\n\r\n${part.value}\r\n`)]
      : [
          Buffer.from(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field}"; filename="${part.fileName}"\r\n` +
              'Content-Type: application/octet-stream\r\n\r\n',
          ),
          Buffer.from(part.bytes),
          Buffer.from('\r\n'),
        ],
  );
  return {
    payload: Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}
