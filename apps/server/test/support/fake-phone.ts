import { request as httpRequest } from 'node:http';
import { eq } from 'drizzle-orm';
import { PAIRING_TOKEN_HEADER, type CaptureState, type Session, type UploadKind } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import type { Keypoints2D } from '@kinetrace/mocap/pose/types';
import { keypoints2DToJson } from '../../../../packages/mocap/src/formats/keypoints-2d-json.ts';
import { authHeader, type TestApp } from './test-app.ts';

/** The headers of a tus PATCH that writes a phone's bytes at `offset` of the upload. */
export const tusPatchHeaders = (pairingToken: string, offset: number) => ({
  'tus-resumable': '1.0.0',
  [PAIRING_TOKEN_HEADER]: pairingToken,
  'upload-offset': String(offset),
  'content-type': 'application/offset+octet-stream',
});

/** A tus PATCH that sends `bytes` from `offset` and then neither ends nor closes, as a phone cut off mid-send. */
export function heldPatch(url: string, pairingToken: string, bytes: Buffer, offset: number): { end(): void } {
  const request = httpRequest(url, {
    method: 'PATCH',
    headers: {
      ...tusPatchHeaders(pairingToken, offset),
      // The length of the whole rest: the server waits for more than it is sent.
      'content-length': String(bytes.length * 2),
    },
  });
  request.on('error', () => undefined); // the server is killed under it
  request.write(bytes);
  return { end: () => request.destroy() };
}

/** A phone as the server sees it: pairing, polling, uploading with raw tus requests. */
export class FakePhone {
  /** When its recording's first frame was taken, in server milliseconds (by default: when it uploads). */
  firstFrameMs?: number;

  constructor(
    private readonly baseUrl: string,
    private readonly pairingToken: string,
    readonly deviceId: string,
  ) {}

  async connect() {
    const response = await fetch(`${this.baseUrl}/api/capture/${this.pairingToken}/connect/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        device_id: this.deviceId,
        capabilities: {
          model: 'Test phone',
          max_width: 1920,
          max_height: 1080,
          framerates: [30, 60],
          mime_types: ['video/mp4'],
        },
      }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async state(): Promise<CaptureState> {
    const response = await fetch(`${this.baseUrl}/api/capture/${this.pairingToken}/state/?device_id=${this.deviceId}`);
    if (!response.ok) throw new Error(`state ${response.status}: ${await response.text()}`);
    return (await response.json()) as CaptureState;
  }

  private metadata(trialId: string, kind: UploadKind) {
    const pairs = {
      pairing_token: this.pairingToken,
      trial_id: trialId,
      device_id: this.deviceId,
      first_frame_ms: String(this.firstFrameMs ?? Date.now()),
      ...(kind === 'video' ? { filetype: 'video/mp4' } : { kind, filetype: 'application/json' }),
    };
    return Object.entries(pairs)
      .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
      .join(',');
  }

  /** Creates a tus upload (of the video unless `kind` says otherwise); answers its URL, or the refusal. */
  async createUpload(
    trialId: string,
    length: number,
    kind: UploadKind = 'video',
  ): Promise<{ status: number; location?: string; body: string }> {
    const response = await fetch(`${this.baseUrl}/api/capture/uploads/`, {
      method: 'POST',
      headers: {
        'tus-resumable': '1.0.0',
        [PAIRING_TOKEN_HEADER]: this.pairingToken,
        'upload-length': String(length),
        'upload-metadata': this.metadata(trialId, kind),
      },
    });
    const location = response.headers.get('location') ?? undefined;
    return {
      status: response.status,
      location: location && new URL(location, this.baseUrl).toString(),
      body: await response.text(),
    };
  }

  async offset(url: string): Promise<number> {
    const response = await fetch(url, {
      method: 'HEAD',
      headers: { 'tus-resumable': '1.0.0', [PAIRING_TOKEN_HEADER]: this.pairingToken },
    });
    return Number(response.headers.get('upload-offset'));
  }

  async send(url: string, bytes: Buffer, offset: number): Promise<{ status: number; body: string }> {
    const response = await fetch(url, {
      method: 'PATCH',
      headers: tusPatchHeaders(this.pairingToken, offset),
      body: new Uint8Array(bytes),
    });
    return { status: response.status, body: await response.text() };
  }

  /** A whole upload: the video, or (issue 24) the 2D keypoints the phone found in it, sent before it. */
  async upload(trialId: string, bytes: Buffer, kind: UploadKind = 'video') {
    const created = await this.createUpload(trialId, bytes.length, kind);
    if (!created.location) return { status: created.status, body: created.body };
    return this.send(created.location, bytes, 0);
  }
}

/**
 * What a phone running our model sends (issue 24): a detection of its video at `everyNth` frame (2:
 * 30 Hz of a 60 fps video, enough for gait's 12 Hz cutoff), times from the video's first frame, its x
 * moved by `shiftPx` (a phone whose keypoints are off).
 */
export function phoneKeypointsFile(
  detected: Keypoints2D,
  producer: { model: string; backend: string },
  { everyNth = 2, shiftPx = 0 } = {},
): Buffer {
  const file = keypoints2DToJson(detected);
  const kept = file.frames.flatMap((frame, index) => (index % everyNth === 0 ? [{ frame, index }] : []));
  const durationS = file.timestampsS!.at(-1)! - file.timestampsS![0];
  return Buffer.from(
    JSON.stringify({
      ...file,
      otherPeople: undefined,
      timestampsS: kept.map(({ index }) => file.timestampsS![index] - file.timestampsS![0]),
      frames: kept.map(({ frame }) =>
        frame?.map((value, i) => (i % 3 === 0 && value !== null ? value + shiftPx : value)),
      ),
      producer: { ...producer, achievedHz: Math.round((kept.length - 1) / durationS) },
    }),
  );
}

/** `count` phones paired to the session (the app listening at `baseUrl`), each named after `prefix`. */
export async function pairPhones(
  test: Pick<TestApp, 'backends'>,
  baseUrl: string,
  sessionId: string,
  count: number,
  prefix = 'phone',
) {
  const [row] = await test.backends.database.db.select().from(schema.sessions).where(eq(schema.sessions.id, sessionId));
  const phones = Array.from(
    { length: count },
    (_, index) => new FakePhone(baseUrl, row.pairingToken, `${prefix}-${index}-${sessionId.slice(0, 8)}`),
  );
  for (const phone of phones) {
    const connected = await phone.connect();
    if (connected.status !== 200) throw new Error(`phone not paired: ${connected.status}`);
  }
  return { phones, pairingToken: row.pairingToken };
}

/**
 * The session records trial `name` on its paired `phones` and stops, as the web app's Record and Stop do
 * (`get` reads the API as the session's owner): the phones, polling, receive their order and start together.
 * Answers the trial's id and each phone's order.
 */
export async function recordOnPhones(
  phones: readonly FakePhone[],
  sessionId: string,
  name: string,
  get: (url: string) => Promise<unknown>,
) {
  await Promise.all(phones.map((phone) => phone.state())); // polling: connected
  const recorded = (await get(`/sessions/${sessionId}/record/?name=${name}`)) as { id?: string };
  if (typeof recorded.id !== 'string') throw new Error(`trial not recorded: ${JSON.stringify(recorded)}`);
  const orders = await Promise.all(phones.map((phone) => phone.state()));
  for (const [index, phone] of phones.entries()) phone.firstFrameMs = orders[index].recording!.start_at_ms;
  await get(`/sessions/${sessionId}/stop/`);
  return { trialId: recorded.id, orders };
}

/** A new session of the user holding `token`, with `count` phones paired to it (the app listening at `baseUrl`). */
export async function newSessionWithPhones(test: TestApp, baseUrl: string, token: string, count = 2) {
  const created = await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(token) });
  const session = (created.json() as Session[])[0];
  return { session, ...(await pairPhones(test, baseUrl, session.id, count)) };
}
