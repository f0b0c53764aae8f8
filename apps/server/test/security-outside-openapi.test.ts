import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '@kinetrace/contracts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/**
 * Issue 13: what the OpenAPI fuzz does not walk, probed as a stranger would (the tus upload endpoint is
 * left out of the API document). Every answer is a 4xx in the API's own shape, never a 5xx or a
 * framework's internal text.
 */
describe('the tus upload endpoint and the router, probed anonymously', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('pglite');
  });
  afterAll(async () => {
    await test?.close();
  });

  const upload = (headers: Record<string, string>, payload?: string) =>
    test.call({
      method: 'POST',
      url: '/api/capture/uploads/',
      headers: { 'tus-resumable': '1.0.0', ...headers },
      payload,
    });

  it('answers a body that is not valid JSON with a 400, not a 500 naming server internals', async () => {
    const answer = await upload({ 'content-type': 'application/json' }, '{"pairing_token": ');
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ non_field_errors: ['The request body is not valid JSON.'] });
  });

  it('refuses an upload in parallel parts (tus concatenation) with a 400 saying what to do, not a 501', async () => {
    const answer = await upload({
      'upload-concat': 'final;/api/capture/uploads/a /api/capture/uploads/b',
      'upload-metadata': `pairing_token ${Buffer.from('not-a-token').toString('base64')}`,
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({ detail: 'Parallel uploads are not supported: send each video as one upload.' });
  });

  it('answers a path it cannot decode, or with a segment longer than any id or token, as not found, without echoing it', async () => {
    for (const url of ['/api/sessions/%E0%A4%A/', `/api/capture/${'x'.repeat(300)}/state/`]) {
      const answer = await test.call({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.json()).toEqual({ detail: messages.notFound });
    }
  });
});
