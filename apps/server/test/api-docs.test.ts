import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPaths, API_PREFIX } from '@kinetrace/contracts';
import { startTestApp, type TestApp } from './support/test-app.ts';

describe('OpenAPI document', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp('pglite');
  });
  afterAll(async () => {
    await test?.close();
  });

  it('describes every account call from the shared schemas and is browsable at /api/docs', async () => {
    const document = (await test.call({ method: 'GET', url: `${API_PREFIX}/docs/json` })).json() as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>
      >;
    };
    for (const path of Object.values(accountPaths))
      expect(Object.keys(document.paths)).toContain(`${API_PREFIX}${path}`);
    const register = document.paths[`${API_PREFIX}${accountPaths.register}`].post;
    expect(register.requestBody?.content['application/json'].schema.required).toEqual(
      expect.arrayContaining([
        'username',
        'email',
        'password',
        'first_name',
        'last_name',
        'institution',
        'profession',
        'reason',
      ]),
    );
    const page = await test.call({ method: 'GET', url: `${API_PREFIX}/docs/` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger');
  });

  it('answers unknown API paths with a JSON 404, not the web app', async () => {
    const response = await test.call({ method: 'GET', url: `${API_PREFIX}/no-such-call/` });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ detail: 'Not found.' });
  });
});
