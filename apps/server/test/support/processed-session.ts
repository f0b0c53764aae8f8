import { RESULT_TAGS, type Session, type Subject } from '@kinetrace/contracts';
import { sessionWithSubject } from './owned-data.ts';
import { seedTrial } from './seed.ts';
import { authHeader, type TestApp } from './test-app.ts';

/** Two phones as the capture app names them (upper-case UUIDs, as iOS gives them). */
export const PROCESSED_DEVICES = [
  '0A1B2C3D-4E5F-4061-8293-A4B5C6D7E8F9',
  '11111111-2222-4333-8444-555555555555',
] as const;

/** What the seeded session's files hold, to compare downloads with. */
export interface ProcessedSession {
  session: Session;
  subject: Subject;
  trialIds: { calibration: string; neutral: string; walk: string };
  bytes: {
    video: (trial: string, camera: number) => Buffer;
    sync: (trial: string, camera: number) => Buffer;
    trc: (trial: string) => Buffer;
    mot: Buffer;
    osim: Buffer;
    settings: (trial: string) => Buffer;
  };
}

/**
 * A session as calibration, the neutral and one movement trial leave it (run-trial.ts and
 * server-trial-io.ts: per-camera results name their phone in meta.device_id, the neutral's main
 * settings name the model it was scaled with), seeded rather than processed so that tests of what
 * the API gives out take seconds, not the minutes pose detection does.
 */
export async function seedProcessedSession(test: TestApp, token: string): Promise<ProcessedSession> {
  const { session, subject } = await sessionWithSubject(test, token, {
    name: 'OpenCap subject',
    weight: 83,
    height: 1.86,
    birth_year: 1990,
    subject_tags: ['unimpaired'],
    terms: true,
    gender: 'woman',
  });
  await test.call({
    method: 'GET',
    url: `/api/sessions/${session.id}/set_metadata/?cb_rows=4&cb_cols=5&cb_square=35&cb_placement=Perpendicular`,
    headers: authHeader(token),
  });
  const text = (value: string) => Buffer.from(value);
  const bytes: ProcessedSession['bytes'] = {
    video: (trial, camera) => text(`${trial} as phone ${camera} recorded it`),
    sync: (trial, camera) => text(`${trial} synchronised, camera ${camera}`),
    trc: (trial) => text(`PathFileType\t4\t(X/Y/Z)\t${trial}.trc\n`),
    mot: text('Coordinates\nversion=1\nendheader\ntime\tknee_angle_r\n0\t5\n'),
    osim: text(
      '<?xml version="1.0"?><OpenSimDocument Version="40000"><Model name="LaiUhlrich2022_scaled"/></OpenSimDocument>',
    ),
    settings: (trial) =>
      text(JSON.stringify({ trial, openSimModel: { requested: 'LaiUhlrich2022', used: 'LaiUhlrich2022.osim' } })),
  };
  const onEachCamera = (trial: string, build: (camera: number, deviceId: string) => object) =>
    PROCESSED_DEVICES.map((deviceId, camera) => build(camera, deviceId));
  const videos = (trial: string) =>
    onEachCamera(trial, (camera, deviceId) => ({
      deviceId,
      bytes: bytes.video(trial, camera),
      extension: 'mov',
      parameters: { device_model: 'iPhone13,3', fps: 60 },
    })) as { deviceId: string; bytes: Buffer; extension: string; parameters: Record<string, unknown> }[];
  const syncResults = (trial: string) =>
    onEachCamera(trial, (camera, deviceId) => ({
      tag: RESULT_TAGS.videoSync,
      fileName: `${trial}_sync_${deviceId}.mp4`,
      bytes: bytes.sync(trial, camera),
      meta: { device_id: deviceId, camera_name: deviceId },
    })) as { tag: string; fileName: string; bytes: Buffer; meta: Record<string, unknown> }[];

  const calibration = await seedTrial(test, session.id, {
    name: 'calibration',
    videos: videos('calibration'),
    results: onEachCamera('calibration', (camera, deviceId) => ({
      tag: RESULT_TAGS.cameraParameters,
      fileName: `${deviceId}.json`,
      bytes: text(`{"camera": ${camera}}`),
      meta: { device_id: deviceId, camera_name: deviceId },
    })) as { tag: string; fileName: string; bytes: Buffer; meta: Record<string, unknown> }[],
  });
  const neutral = await seedTrial(test, session.id, {
    name: 'neutral',
    meta: { subject: { mass_kg: 83, height_m: 1.86 } },
    videos: videos('neutral'),
    results: [
      { tag: RESULT_TAGS.markerData, fileName: 'neutral.trc', bytes: bytes.trc('neutral') },
      { tag: RESULT_TAGS.opensimModel, fileName: 'neutral_scaled.osim', bytes: bytes.osim },
      { tag: RESULT_TAGS.mainSettings, fileName: 'neutral_settings.json', bytes: bytes.settings('neutral') },
      ...syncResults('neutral'),
    ],
  });
  const walk = await seedTrial(test, session.id, {
    name: 'walk',
    videos: videos('walk'),
    results: [
      { tag: RESULT_TAGS.markerData, fileName: 'walk.trc', bytes: bytes.trc('walk') },
      { tag: RESULT_TAGS.ikResults, fileName: 'walk.mot', bytes: bytes.mot },
      { tag: RESULT_TAGS.mainSettings, fileName: 'walk_settings.json', bytes: bytes.settings('walk') },
      ...syncResults('walk'),
    ],
  });
  return { session, subject, trialIds: { calibration, neutral, walk }, bytes };
}
