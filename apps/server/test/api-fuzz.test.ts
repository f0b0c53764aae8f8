import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { fieldErrorsSchema, importMessages, messages, processingMessages } from '@kinetrace/contracts';
import { hostileFiles, POLLUTED_KEYS, UPLOAD_ROUTES, type HostileFile, type Threat } from './support/hostile-files.ts';
import { multipart } from './support/multipart.ts';
import { apiOperations, pathValuesOf, urlOf, type Operation, type OwnedIds } from './support/openapi.ts';
import { seedOwnedData } from './support/owned-data.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/**
 * Issue 13: a probe in the suite. Walks the OpenAPI document the server serves and sends every
 * operation wrong types, huge strings, out-of-range and non-integer ids, unknown fields and
 * malformed bodies, as the owner, another user and nobody. No answer may be a 5xx, and every 400
 * says which field is wrong (or is one of the few rule answers about the request as a whole).
 */

/** 400s about the request as a whole rather than one field (spec §8), answered as `{ detail }`. */
const WHOLE_REQUEST_RULES = new Set<string>([
  messages.invalidResetLink,
  messages.devicesRequiredForCalibration(0), // recording with no phone paired
  importMessages.neutralNeedsSubject,
  processingMessages.notProcessable,
]);

const HUGE = 'x'.repeat(200_000);
const badPathValues = ['2147483648', '-1', '1.5', 'x'.repeat(2000), '%00'];
const badQueryValues = ['x'.repeat(5000), '2147483648', '99999999999999999999', '-1.5', 'true'];
const badBodyValues: unknown[] = [true, [1], null, HUGE, 2147483648, -1e308];

type Caller = 'owner' | 'other' | 'anonymous';
const ALL_CALLERS: Caller[] = ['owner', 'other', 'anonymous'];

describe('every operation of the OpenAPI document, fuzzed', () => {
  let test: TestApp;
  let operations: Operation[];
  let headersOf: Record<Caller, Record<string, string>>;
  let ids: OwnedIds;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    const owned = await seedOwnedData(test);
    headersOf = { ...owned.headersOf, anonymous: {} };
    ids = owned.ids;
    operations = await apiOperations(test);
  });
  afterAll(async () => {
    await test?.close();
  });

  /** The requests one operation is sent: each breaks one thing and leaves the rest valid where it can. */
  function casesOf(operation: Operation): { name: string; request: InjectOptions; callers?: Caller[] }[] {
    const { method, path } = operation;
    const parameters = operation.operation.parameters ?? [];
    const pathValues = pathValuesOf(operation, ids);
    const base = { method: method.toUpperCase() as InjectOptions['method'] };
    const cases: { name: string; request: InjectOptions; callers?: Caller[] }[] = [];
    // Values are checked before anyone's rights, the same for every caller: each value goes to the owner
    // (whose calls get furthest) and, in turn, to the other user or nobody.
    let turn = 0;
    const ownerAndOneMore = (): Caller[] => ['owner', turn++ % 2 === 0 ? 'other' : 'anonymous'];
    for (const parameter of parameters.filter((p) => p.in === 'path' && p.name !== '*')) {
      for (const value of badPathValues) {
        cases.push({
          name: `path ${parameter.name}=${value.slice(0, 20)}`,
          request: { ...base, url: urlOf(path, { ...pathValues, [parameter.name]: value }) },
        });
      }
    }
    for (const parameter of parameters.filter((p) => p.in === 'query')) {
      for (const value of badQueryValues) {
        const query = `${encodeURIComponent(parameter.name)}=${encodeURIComponent(value)}`;
        cases.push({
          name: `query ${parameter.name}=${value.slice(0, 20)}`,
          request: { ...base, url: urlOf(path, pathValues, query) },
          callers: ownerAndOneMore(),
        });
      }
      const repeated = `${parameter.name}=1&${parameter.name}=2`;
      cases.push({
        name: `query ${parameter.name} twice`,
        request: { ...base, url: urlOf(path, pathValues, repeated) },
      });
    }
    for (const parameter of parameters.filter((p) => p.in === 'header')) {
      cases.push({
        name: `header ${parameter.name}`,
        request: { ...base, url: urlOf(path, pathValues), headers: { [parameter.name]: HUGE.slice(0, 4000) } },
      });
    }
    const url = urlOf(path, pathValues);
    cases.push({ name: 'unknown query field', request: { ...base, url: urlOf(path, pathValues, 'zzz_unknown=1') } });
    if (method !== 'get') {
      const properties = Object.keys(
        operation.operation.requestBody?.content['application/json']?.schema?.properties ?? {},
      );
      for (const property of properties) {
        for (const value of badBodyValues) {
          cases.push({
            name: `body ${property}=${JSON.stringify(value)?.slice(0, 20)}`,
            request: { ...base, url, payload: { [property]: value } },
            callers: ownerAndOneMore(),
          });
        }
      }
      const json = { 'content-type': 'application/json' };
      cases.push(
        { name: 'unknown body field', request: { ...base, url, payload: { zzz_unknown: 1 } } },
        { name: 'malformed JSON', request: { ...base, url, headers: json, payload: '{"a":' } },
        { name: 'JSON array body', request: { ...base, url, headers: json, payload: '[1,2]' } },
        { name: 'JSON string body', request: { ...base, url, headers: json, payload: '"x"' } },
        { name: 'empty JSON body', request: { ...base, url, headers: json, payload: '' } },
        { name: 'text body', request: { ...base, url, headers: { 'content-type': 'text/plain' }, payload: 'hello' } },
        {
          name: 'malformed multipart',
          request: {
            ...base,
            url,
            headers: { 'content-type': 'multipart/form-data; boundary=zz' },
            payload: '--zz\r\nContent-Disposition: form-data; name="x"\r\n\r\n',
          },
        },
      );
    }
    return cases;
  }

  /** Field-keyed: every key a field (or non_field_errors), every value a list of messages. */
  function fieldKeyed(body: unknown): boolean {
    if (fieldErrorsSchema.safeParse(body).success) {
      return Object.values(body as Record<string, string[]>).every(
        (list) => list.length > 0 && list.every((text) => text.trim().length > 0),
      );
    }
    const detail = (body as { detail?: unknown } | null)?.detail;
    return typeof detail === 'string' && WHOLE_REQUEST_RULES.has(detail);
  }

  it('answers no 5xx, and every 400 with field-keyed messages, to owner, other user and anonymous', async () => {
    expect(operations.length).toBeGreaterThan(50);

    const serverErrors: string[] = [];
    const notFieldKeyed: string[] = [];
    let sent = 0;
    for (const operation of operations) {
      for (const { name, request, callers = ALL_CALLERS } of casesOf(operation)) {
        for (const caller of callers) {
          const response = await test.call({ ...request, headers: { ...request.headers, ...headersOf[caller] } });
          sent++;
          const label = `${caller} ${request.method} ${String(request.url).slice(0, 120)} (${name}) → ${response.statusCode} ${response.body.slice(0, 160)}`;
          if (response.statusCode >= 500) serverErrors.push(label);
          else if (response.statusCode === 400) {
            let body: unknown;
            try {
              body = response.json();
            } catch {
              body = response.body;
            }
            if (!fieldKeyed(body)) notFieldKeyed.push(label);
          }
        }
      }
    }
    console.info(`api fuzz: ${sent} requests to ${operations.length} operations`);
    expect(sent).toBeGreaterThan(1000);
    expect(serverErrors, serverErrors.join('\n')).toEqual([]);
    expect(notFieldKeyed, notFieldKeyed.join('\n')).toEqual([]);
  }, 120_000);

  it('answers every route that takes a file, fed hostile files of every threat, with no 5xx and field-keyed 400s, and pollutes nothing', async () => {
    // The fuzz above ends by deleting its owner's account and logging out: this test seeds an owner of its own.
    const { headersOf, ids } = await seedOwnedData(test);
    const keyOf = ({ method, path }: Operation) => `${method.toUpperCase()} ${path}`;
    // The served document does not mark which routes take multipart bodies: the corpus's list of them is checked
    // against the document, so that a route renamed or removed is noticed.
    const uploads = operations.filter((operation) => keyOf(operation) in UPLOAD_ROUTES);
    expect(uploads.map(keyOf).sort()).toEqual(Object.keys(UPLOAD_ROUTES).sort());
    // One file per threat on each route (each calibration or lens upload starts a parser thread, about a second):
    // its own kind where the route reads one, any other kind's otherwise, as a hostile file is hostile anywhere.
    const corpus = hostileFiles();
    const threats: Threat[] = ['prototype key', 'bomb', 'deep nesting', 'huge array', 'huge number', 'unterminated'];
    const failures: string[] = [];
    let sent = 0;
    for (const [index, operation] of uploads.entries()) {
      const route = UPLOAD_ROUTES[keyOf(operation)];
      for (const threat of threats) {
        const ofThreat = corpus.filter((file) => file.threat === threat);
        const own = ofThreat.filter((file) => route.kinds.includes(file.kind));
        const file: HostileFile = (own.length > 0 ? own : ofThreat)[index % (own.length || ofThreat.length)];
        const copies = route.field === 'video' ? 2 : 1;
        const body = multipart([
          ...route.fields,
          ...Array.from({ length: copies }, (_, copy) => ({
            field: route.field,
            fileName: route.field === 'video' ? `cam${copy + 1}.mp4` : file.fileName,
            bytes: file.bytes,
          })),
        ]);
        const response = await test.call({
          method: 'POST',
          url: urlOf(operation.path, pathValuesOf(operation, ids)),
          payload: body.payload,
          headers: { ...headersOf.owner, ...body.headers },
        });
        sent++;
        const label = `${keyOf(operation)} ${file.kind}, ${file.label} → ${response.statusCode} ${response.body.slice(0, 160)}`;
        if (response.statusCode !== 400 || !fieldKeyed(response.json())) failures.push(label);
      }
    }
    console.info(`api fuzz: ${sent} hostile uploads to ${uploads.length} routes`);
    expect(failures, failures.join('\n')).toEqual([]);
    const plain = {} as Record<string, unknown>;
    for (const key of POLLUTED_KEYS) expect(plain[key], `Object.prototype.${key}`).toBeUndefined();
  }, 120_000);
});
