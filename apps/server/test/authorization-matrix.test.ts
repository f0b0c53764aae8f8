import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { eq } from 'drizzle-orm';
import { messages, type Trial } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { hostileFiles, POLLUTED_KEYS, UPLOAD_ROUTES } from './support/hostile-files.ts';
import { multipart as multipartBody } from './support/multipart.ts';
import { apiOperations, pathValuesOf, urlOf, type Operation, type OwnedIds } from './support/openapi.ts';
import { seedOwnedData, subjectBody, type OwnedData } from './support/owned-data.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

/**
 * §6 for every route the server has, generated from the OpenAPI document it serves: a route must
 * be classified below or this test fails, so a new route cannot skip its authorization check.
 *
 * - anyone:  needs no credential (sign-up and sign-in, instance facts, tag lists, public profiles).
 * - account: the caller's own account or lists: 401 without a login.
 * - owner:   changes or runs something of the owner's data: the owner may; another user gets 404
 *            (private data does not reveal that it exists); nobody signed in gets 401.
 * - reader:  reads the owner's data: the owner may; others get 404 while it is private, and may
 *            read it with its share link (the session's, or for a subject's routes the subject's).
 * - filtered: lists anyone may ask for, answering only what the caller may read: nothing of
 *            the owner's private data for anyone else.
 * - task:    a background task's progress or result, for whoever started it: 404 for anyone else,
 *            share link or not.
 * - pairing: the phone's calls, whose credential is the pairing token in the path: 404 without it.
 * - signed:  stored files, served for a URL the server signed for someone allowed to read them.
 * - worker:  the worker API (issue 23): worker tokens only, so every user's token, and none, gets 401.
 * - worker-link: a leased job's input, served for a link the server signed for its worker: 403 unsigned,
 *            whoever calls.
 */
type Kind =
  'anyone' | 'account' | 'owner' | 'reader' | 'filtered' | 'task' | 'pairing' | 'signed' | 'worker' | 'worker-link';
interface Rule {
  kind: Kind;
  /**
   * The route only reads: a read-only personal token may call it (issue 22). Every route not marked is
   * refused to one, so a new route is closed to read-only tokens until it is marked here and in the
   * server's list (read-only-routes.ts). Several GETs write and two POSTs only read: the method does not decide.
   */
  reads?: true;
  /** A valid query and body, so that only who calls decides the answer. */
  query?: (ids: OwnedIds) => string;
  body?: (ids: OwnedIds) => InjectOptions['payload'];
  contentType?: string;
  /** The signed-in call uses an account of its own (it ends the login or the account). */
  throwaway?: boolean;
  /** The owner's call replaces or revokes the subject's share link: it is put back for the routes after it. */
  changesShareLink?: boolean;
}

const boundary = 'matrixb0undary';
const multipart = (fields: Record<string, string>, file?: { field: string; name: string }) =>
  [
    ...Object.entries(fields).map(
      ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    ),
    ...(file
      ? [
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n\r\nnot a video\r\n`,
        ]
      : []),
    `--${boundary}--\r\n`,
  ].join('');
const multipartType = `multipart/form-data; boundary=${boundary}`;

const rules: Record<string, Rule> = {
  'GET /api/instance/': { reads: true, kind: 'anyone' },
  'POST /api/login/': { kind: 'anyone', body: () => ({ username: 'nobody_here', password: 'wrong password here' }) },
  'POST /api/logout/': { kind: 'account', throwaway: true },
  'GET /api/me/': { reads: true, kind: 'account' },
  'POST /api/verify/': { kind: 'account', body: () => ({ otp_token: '000000' }) },
  'GET /api/check-otp-verified/': { kind: 'account' },
  'POST /api/reset-otp-challenge/': { kind: 'account' },
  'POST /api/register/': { kind: 'anyone', body: () => ({}) },
  'POST /api/get_user_info/': { reads: true, kind: 'anyone', body: () => ({ username: 'nobody_here' }) },
  'POST /api/update_profile/': {
    kind: 'account',
    body: () => ({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: `matrix_${Date.now()}@lab.example.org`,
      country: 'United States',
      institution: 'Gait Lab',
      profession: 'Researcher',
      reason: 'Gait analysis',
      website: '',
      newsletter: false,
    }),
  },
  'POST /api/update_profile_picture/': { kind: 'account', body: () => multipart({}), contentType: multipartType },
  'POST /api/reset-password/': { kind: 'anyone', body: () => ({ email: 'nobody@lab.example.org' }) },
  'POST /api/new-password/': {
    kind: 'anyone',
    body: () => ({ token: 'not-a-token', password: 'a long enough new password' }),
  },
  'POST /api/set-institutional-use/': { kind: 'account', body: () => ({ institutional_use: 'research_at_academic' }) },
  'POST /api/send-unlock-link/': { kind: 'anyone', body: () => ({ username: 'nobody_here' }) },
  'POST /api/unlock-login/': { kind: 'anyone', body: () => ({ token: 'not-a-token' }) },
  'POST /api/delete-account/': { kind: 'account', throwaway: true, body: () => ({ confirm: 'not-the-username' }) },
  'GET /api/personal-tokens/': { kind: 'account' },
  'POST /api/personal-tokens/': { kind: 'account', body: () => ({ name: 'matrix', access: 'read' }) },
  'POST /api/personal-tokens/{id}/revoke/': { kind: 'account' },
  'GET /api/sessions/new/': { kind: 'account' },
  'GET /api/sessions/': { reads: true, kind: 'account' },
  'GET /api/sessions/valid/': { reads: true, kind: 'account' },
  'POST /api/sessions/valid/': { reads: true, kind: 'filtered', body: (ids) => ({ subject_id: Number(ids.subject) }) },
  'GET /api/sessions/search_sessions/': { reads: true, kind: 'account' },
  'GET /api/sessions/recycle_bin/': { reads: true, kind: 'account' },
  // Naming the owner's ids, as another account's bin might: only the caller's own trashed items go.
  'POST /api/sessions/empty_trash/': {
    kind: 'account',
    body: (ids) => ({ trials: [ids.trial], sessions: [ids.session] }),
  },
  'GET /api/sessions/{id}/': { reads: true, kind: 'reader' },
  'PATCH /api/sessions/{id}/': { kind: 'owner', body: () => ({ public: false }) },
  'GET /api/sessions/{id}/get_qr/': { kind: 'owner' },
  'POST /api/sessions/{id}/rename/': { kind: 'owner', body: () => ({ sessionNewName: 'matrix' }) },
  'GET /api/sessions/{id}/set_subject/': { kind: 'owner', query: (ids) => `subject_id=${ids.subject}` },
  'GET /api/sessions/{id}/set_metadata/': { kind: 'owner', query: () => 'cb_rows=4' },
  'GET /api/sessions/{id}/get_session_settings/': { reads: true, kind: 'reader' },
  'POST /api/sessions/{id}/trash/': { kind: 'owner' },
  'POST /api/sessions/{id}/restore/': { kind: 'owner' },
  'POST /api/sessions/{id}/permanent_remove/': { kind: 'owner' },
  'GET /api/sessions/{id}/download/': { reads: true, kind: 'reader' },
  'GET /api/sessions/{id}/async-download/': { reads: true, kind: 'reader' },
  'GET /api/logs/{taskId}/on-ready/': { reads: true, kind: 'task' },
  'GET /api/trials/{id}/': { reads: true, kind: 'reader' },
  'POST /api/trials/{id}/rename/': { kind: 'owner', body: () => ({ trialNewName: 'walk' }) },
  'POST /api/trials/{id}/modifyTags/': { kind: 'owner', body: () => ({ trialNewTags: ['walking'] }) },
  'POST /api/trials/{id}/trash/': { kind: 'owner' },
  'POST /api/trials/{id}/restore/': { kind: 'owner' },
  'POST /api/trials/{id}/permanent_remove/': { kind: 'owner' },
  'GET /api/trial-tags/{id}/get_tags_trial/': { reads: true, kind: 'reader' },
  'GET /api/subjects/': { reads: true, kind: 'account' },
  'POST /api/subjects/': { kind: 'account', body: () => subjectBody },
  'GET /api/subjects/{id}/': { reads: true, kind: 'reader' },
  'PUT /api/subjects/{id}/': { kind: 'owner', body: () => subjectBody },
  'POST /api/subjects/{id}/trash/': { kind: 'owner' },
  'POST /api/subjects/{id}/restore/': { kind: 'owner' },
  'POST /api/subjects/{id}/permanent_remove/': { kind: 'owner' },
  'POST /api/subjects/{id}/replace_share_token/': { kind: 'owner', changesShareLink: true },
  'POST /api/subjects/{id}/revoke_share_token/': { kind: 'owner', changesShareLink: true },
  'GET /api/subject-tags/{id}/get_tags_subject/': { reads: true, kind: 'reader' },
  'GET /api/subjects/{id}/download/': { reads: true, kind: 'reader' },
  'GET /api/subjects/{id}/async-download/': { reads: true, kind: 'reader' },
  'GET /api/media/profile-pictures/{userId}/{fileName}': { reads: true, kind: 'anyone' },
  'GET /api/media/files/{*}': { reads: true, kind: 'signed' },
  'POST /api/worker/lease/': { kind: 'worker', body: () => ({ wait_s: 0 }) },
  'POST /api/worker/leases/{lease}/heartbeat/': { kind: 'worker', body: () => ({ stage: 'pose', percent: 1 }) },
  'GET /api/worker/leases/{lease}/inputs/': { kind: 'worker' },
  'GET /api/worker/leases/{lease}/videos/{index}/': { kind: 'worker-link' },
  'GET /api/worker/leases/{lease}/videos/{index}/keypoints/{file}/': { kind: 'worker-link' },
  'PUT /api/worker/leases/{lease}/results/': {
    kind: 'worker',
    query: () => 'tag=ik_results&name=walk.mot',
    contentType: 'application/octet-stream',
    body: () => 'not a result',
  },
  'POST /api/worker/leases/{lease}/complete/': { kind: 'worker', body: () => ({ results: [] }) },
  'POST /api/worker/leases/{lease}/fail/': { kind: 'worker', body: () => ({ kind: 'user', message: 'Nobody' }) },
  'POST /api/worker/leases/{lease}/add-results/': { kind: 'worker', body: () => ({ results: [] }) },
  'POST /api/worker/leases/{lease}/follow-up-failed/': {
    kind: 'worker',
    body: () => ({ kind: 'internal', error: 'encoder gone' }),
  },
  'GET /api/sessions/{id}/record/': { kind: 'owner', query: () => 'name=matrix_trial' },
  'GET /api/sessions/{id}/status/': { kind: 'owner' },
  'GET /api/sessions/{id}/stop/': { kind: 'owner' },
  'GET /api/sessions/{id}/cancel_trial/': { kind: 'owner' },
  'GET /api/sessions/{id}/get_n_calibrated_cameras/': { kind: 'owner' },
  'GET /api/sessions/{id}/calibration_img/': { kind: 'owner' },
  'GET /api/sessions/{id}/neutral_img/': { kind: 'owner' },
  'POST /api/sessions/{id}/import/': {
    kind: 'owner',
    body: () => multipart({ name: 'imported' }, { field: 'video', name: 'cam1.mp4' }),
    contentType: multipartType,
  },
  'GET /api/capture/time/': { reads: true, kind: 'anyone' },
  'POST /api/capture/{pairingToken}/connect/': {
    kind: 'pairing',
    body: () => ({
      device_id: 'matrix-phone',
      capabilities: {
        model: 'Pixel 8',
        max_width: 1920,
        max_height: 1080,
        framerates: [60],
        mime_types: ['video/mp4'],
      },
    }),
  },
  'GET /api/capture/{pairingToken}/state/': { kind: 'pairing', query: () => 'device_id=matrix-phone' },
  'POST /api/trials/{id}/reprocess/': { kind: 'owner' },
  'POST /api/sessions/{id}/reprocess/': { kind: 'owner' },
  'POST /api/sessions/{id}/import-calibration/': {
    kind: 'owner',
    body: () => multipart({}, { field: 'file', name: 'cam1.json' }),
    contentType: multipartType,
  },
  'GET /api/sessions/{id}/new_subject/': { kind: 'owner' },
  'GET /api/lens-calibrations/': { reads: true, kind: 'account' },
  'POST /api/lens-calibrations/': { kind: 'account', body: () => multipart({}), contentType: multipartType },
  'GET /api/analysis-functions/': { reads: true, kind: 'reader', query: (ids) => `session_id=${ids.session}` },
  'GET /api/analysis-results/states/': { reads: true, kind: 'reader', query: (ids) => `session_id=${ids.session}` },
  'GET /api/analysis-results/pending/': { reads: true, kind: 'account' },
  // No analysis has run on the fixture's trial: its task is looked up like a task (404 to anyone else).
  'GET /api/analysis-functions/{id}/task-for-trial/{trialId}/': { reads: true, kind: 'task' },
  'POST /api/analysis-functions/{id}/invoke/': {
    kind: 'owner',
    body: (ids) => ({ session_id: ids.session, specific_trial_names: ['walk'] }),
  },
  'GET /api/analysis-result/{task_id}/': { reads: true, kind: 'task' },
  'GET /api/analysis-dashboards/': { reads: true, kind: 'anyone' },
  'GET /api/analysis-dashboards/{id}/': { reads: true, kind: 'anyone' },
  'GET /api/analysis-dashboards/{id}/data/': { reads: true, kind: 'filtered', query: (ids) => `trial_id=${ids.trial}` },
};

/** Answers that mean "not allowed" (or "no such thing", for private data). */
const REFUSED = [401, 403, 404];

describe('authorization of every route in the OpenAPI document', () => {
  let test: TestApp;
  let ids: OwnedIds;
  let operations: Operation[];
  let headersOf: OwnedData['headersOf'];
  let shareTokens: OwnedData['shareTokens'];

  beforeAll(async () => {
    test = await startTestApp('pglite');
    ({ headersOf, ids, shareTokens } = await seedOwnedData(test));
    operations = await apiOperations(test);
  });
  afterAll(async () => {
    await test?.close();
  });

  const keyOf = ({ method, path }: Operation) => `${method.toUpperCase()} ${path}`;

  it('classifies every route, and no route it classifies is gone', () => {
    const keys = operations.map(keyOf);
    expect(
      keys.filter((key) => !(key in rules)),
      'routes missing from the matrix: classify them in `rules`',
    ).toEqual([]);
    expect(
      Object.keys(rules).filter((key) => !keys.includes(key)),
      'matrix entries for routes that no longer exist',
    ).toEqual([]);
  });

  /** The owner's signed URL of a stored file (path after /api/media/files/, and its signed query). */
  async function signedMedia(): Promise<URL> {
    const trial = (
      await test.call({ method: 'GET', url: `/api/trials/${ids.trial}/`, headers: headersOf.owner })
    ).json() as Trial;
    return new URL(trial.results[0].media!);
  }

  /** Calls an operation with its rule's query and body, so that only who calls (and how) decides the answer. */
  async function callAs(
    operation: Operation,
    headers: Record<string, string>,
    options: { shareToken?: string; pairingToken?: string; query?: string; values?: Record<string, string> } = {},
  ) {
    const rule = rules[keyOf(operation)];
    const values = { ...pathValuesOf(operation, ids), ...options.values };
    const pathValues = options.pairingToken ? { ...values, pairingToken: options.pairingToken } : values;
    const query = [rule.query?.(ids), options.query, options.shareToken && `share_token=${options.shareToken}`]
      .filter(Boolean)
      .join('&');
    const response = await test.call({
      method: operation.method.toUpperCase() as InjectOptions['method'],
      url: urlOf(operation.path, pathValues, query),
      headers: { ...headers, ...(rule.contentType && { 'content-type': rule.contentType }) },
      payload: rule.body?.(ids),
    });
    return { status: response.statusCode, body: response.body };
  }

  // Before the test below, whose last calls remove the owner's data: nothing here may change it.
  it('refuses a read-only personal token of the owner on every route but those that only read', async () => {
    const created = await test.call({
      method: 'POST',
      url: '/api/personal-tokens/',
      headers: headersOf.owner,
      payload: { name: 'matrix reader', access: 'read' },
    });
    const readOnly = authHeader((created.json() as { token: string }).token);
    const media = await signedMedia();
    const failures: string[] = [];
    for (const operation of operations) {
      const rule = rules[keyOf(operation)];
      if (!rule) continue; // reported by the first test
      const signed =
        rule.kind === 'signed'
          ? { values: { '*': media.pathname.replace('/api/media/files/', '') }, query: media.search.slice(1) }
          : rule.kind === 'worker-link'
            ? { query: 'expires=1&signature=x' }
            : {};
      const { status, body } = await callAs(operation, readOnly, signed);
      // The worker API takes no user's token at all (the 'worker' rule), its input links none either.
      if (rule.kind === 'worker' || rule.kind === 'worker-link') {
        if (status !== (rule.kind === 'worker' ? 401 : 403))
          failures.push(`${keyOf(operation)}: a read-only token got ${status} ${body}`);
        continue;
      }
      if (rule.reads && (status === 401 || status === 403 || status >= 500))
        failures.push(`${keyOf(operation)} only reads: a read-only token got ${status}`);
      if (!rule.reads && (status !== 403 || !body.includes(messages.readOnlyToken)))
        failures.push(
          `${keyOf(operation)} is not marked as a read: a read-only token got ${status} ${body}, expected 403`,
        );
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 120_000);

  it('answers each caller as its class says, on private data and through share links', async () => {
    const failures: string[] = [];
    let calls = 0;
    for (const operation of operations) {
      const rule = rules[keyOf(operation)];
      if (!rule) continue; // reported by the test above
      const values: Record<string, string> =
        rule.kind === 'signed' ? { '*': (await signedMedia()).pathname.replace('/api/media/files/', '') } : {};
      const sendFull = async (
        headers: Record<string, string>,
        options: { shareToken?: string; pairingToken?: string; query?: string } = {},
      ) => {
        calls++;
        return callAs(operation, headers, { ...options, values });
      };
      const send = async (...args: Parameters<typeof sendFull>) => (await sendFull(...args)).status;
      const check = (who: string, status: number, expected: (status: number) => boolean, description: string) => {
        if (!expected(status) || status >= 500)
          failures.push(`${keyOf(operation)}: ${who} got ${status}, expected ${description}`);
      };
      const allowed = (status: number) => !REFUSED.includes(status);
      const signedIn = rule.throwaway ? authHeader((await verifiedUser(test)).token) : headersOf.owner;
      const shareToken = /^\/api\/(subjects|subject-tags)\//.test(operation.path)
        ? shareTokens.subject
        : shareTokens.session;

      switch (rule.kind) {
        case 'anyone':
          check('anonymous', await send({}), (status) => status !== 401 && status !== 403, 'no login needed');
          break;
        case 'account':
          check('anonymous', await send({}), (status) => status === 401, '401');
          check('signed in', await send(signedIn), (status) => status !== 401 && status !== 403, 'their own account');
          break;
        case 'owner':
          check('other user', await send(headersOf.other), (status) => status === 404, '404');
          check('anonymous', await send({}), (status) => status === 401, '401');
          check(
            'other user with the share link',
            await send(headersOf.other, { shareToken }),
            (status) => status === 404,
            '404',
          );
          check('owner', await send(headersOf.owner), allowed, 'allowed');
          if (rule.changesShareLink)
            await test.backends.database.db
              .update(schema.subjects)
              .set({ shareToken: shareTokens.subject })
              .where(eq(schema.subjects.id, Number(ids.subject)));
          break;
        case 'reader':
          for (const [who, headers] of [
            ['other user', headersOf.other],
            ['anonymous', {}],
          ] as const) {
            check(who, await send(headers), (status) => status === 404, '404 while private');
            check(
              `${who} with a wrong link`,
              await send(headers, { shareToken: 'not-the-token' }),
              (status) => status === 404,
              '404',
            );
          }
          check('owner', await send(headersOf.owner), allowed, 'allowed');
          check('anonymous with the share link', await send({}, { shareToken }), allowed, 'allowed');
          break;
        case 'task':
          for (const [who, headers] of [
            ['other user', headersOf.other],
            ['anonymous', {}],
          ] as const) {
            check(who, await send(headers), (status) => status === 404, '404');
            check(`${who} with the share link`, await send(headers, { shareToken }), (status) => status === 404, '404');
          }
          // The fixture's task is an archive download: its progress answers its owner; as an analysis it does not exist.
          check('owner', await send(headersOf.owner), (status) => status !== 401 && status !== 403, 'not refused');
          break;
        case 'filtered':
          for (const [who, headers] of [
            ['other user', headersOf.other],
            ['anonymous', {}],
          ] as const) {
            const { status, body } = await sendFull(headers);
            check(
              who,
              status,
              (answer) => answer < 500 && !body.includes(ids.session) && !body.includes(ids.trial),
              "nothing of the owner's private data",
            );
          }
          check('owner', await send(headersOf.owner), allowed, 'allowed');
          break;
        case 'pairing':
          check(
            'a wrong pairing token',
            await send({}, { pairingToken: 'not-the-pairing-token' }),
            (status) => status === 404,
            '404',
          );
          check('the paired phone', await send({}), allowed, 'allowed');
          break;
        case 'worker':
          check('anonymous', await send({}), (status) => status === 401, '401');
          check(
            'owner',
            await send(headersOf.owner),
            (status) => status === 401,
            '401: a user token is no worker token',
          );
          break;
        case 'worker-link':
          check(
            'the owner, unsigned',
            await send(headersOf.owner, { query: 'expires=1&signature=x' }),
            (status) => status === 403,
            '403',
          );
          break;
        case 'signed':
          check(
            'an unsigned request',
            await send({}, { query: 'expires=1&signature=x' }),
            (status) => status === 403,
            '403',
          );
          break;
      }
    }
    expect(calls).toBeGreaterThan(operations.length * 2);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 120_000);

  it("refuses another user's and an anonymous hostile upload to the owner's routes before reading it", async () => {
    // A reader that ran would answer 400; the refusal must come first, whatever the file holds.
    const bomb = hostileFiles().find((file) => file.kind === 'calibration .pickle' && file.threat === 'bomb')!;
    const pollution = hostileFiles().find(
      (file) => file.kind === 'calibration .toml' && file.threat === 'prototype key',
    )!;
    const failures: string[] = [];
    for (const operation of operations.filter((entry) => keyOf(entry) in UPLOAD_ROUTES)) {
      const route = UPLOAD_ROUTES[keyOf(operation)];
      const rule = rules[keyOf(operation)];
      const callers: [string, Record<string, string>, number][] =
        rule.kind === 'owner'
          ? [
              ['other user', headersOf.other, 404],
              ['anonymous', {}, 401],
            ]
          : [['anonymous', {}, 401]];
      for (const file of [bomb, pollution]) {
        const body = multipartBody([
          ...route.fields,
          { field: route.field, fileName: file.fileName, bytes: file.bytes },
        ]);
        for (const [who, headers, expected] of callers) {
          const response = await test.call({
            method: 'POST',
            url: urlOf(operation.path, pathValuesOf(operation, ids)),
            payload: body.payload,
            headers: { ...headers, ...body.headers },
          });
          if (response.statusCode !== expected)
            failures.push(
              `${keyOf(operation)}: ${who} sending ${file.label} got ${response.statusCode}, expected ${expected}`,
            );
        }
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    const plain = {} as Record<string, unknown>;
    for (const key of POLLUTED_KEYS) expect(plain[key], `Object.prototype.${key}`).toBeUndefined();
  });
});
