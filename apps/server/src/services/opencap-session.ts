import { DEFAULT_SESSION_SETTINGS, GENDER_OPTIONS, RESULT_TAGS } from '@kinetrace/contracts';
import { stringify } from 'yaml';
import type { SessionRowDb, SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectRow, SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialResultRow, TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { disclosureTo, grantStillHolds, type Disclosure } from './access.ts';
import { sessionNameOf } from './presenters.ts';
import { pickleStringIntDict } from './python-pickle.ts';
import { calibratedCamerasOf } from './session-calibration.ts';
import { trialFilesPrefix } from './storage-keys.ts';

/**
 * A session as OpenCap's client (opencap-processing utils.py) and analysis scripts expect it: cameras
 * numbered `Cam<i>` in the order of the session's calibrated cameras, the scaled model named
 * `<openSimModel>_scaled.osim` after the model the neutral was actually scaled with, and two files
 * made from the session when asked rather than stored, so they always say what the session holds
 * now: `sessionMetadata.yaml` (the neutral's `session_metadata` result) and `mappingCamDevice.pickle`
 * (the calibration's `camera_mapping`).
 */
export interface OpenCapSession {
  /** `Cam<i>` of each calibrated camera's device id. */
  cameraIndex: Map<string, number>;
  /** The phone model each calibrated camera recorded the calibration with, where known. */
  deviceModels: Map<string, string>;
  /** The calibration trial the cameras come from. */
  calibrationTrialId: string | null;
  /** The newest processed neutral, whose subject measures and model the metadata gives. */
  neutral: TrialRow | null;
  /** The model the neutral was scaled with (its main settings), else the one the session asks for. */
  modelName: string;
}

export const OPENCAP_FILE_NAMES = {
  [RESULT_TAGS.sessionMetadata]: 'sessionMetadata.yaml',
  [RESULT_TAGS.cameraMapping]: 'mappingCamDevice.pickle',
} as const;
type DerivedTag = keyof typeof OPENCAP_FILE_NAMES;

/** Where a made-on-request file is addressed: under its trial, so media URLs check access to it as to any of the trial's files. */
export const derivedFileKey = (sessionId: string, trialId: string, tag: DerivedTag) =>
  `${trialFilesPrefix(sessionId, trialId)}/opencap/${OPENCAP_FILE_NAMES[tag]}`;
const DERIVED_KEY = /^sessions\/([0-9a-f-]{36})\/trials\/([0-9a-f-]{36})\/opencap\/([A-Za-z.]+)$/;

/** The results made on request that a trial lists: the metadata on each processed neutral, the mapping on the calibration. */
export function derivedResultsOf(trial: TrialRow, openCap: OpenCapSession): { tag: DerivedTag; key: string }[] {
  if (trial.status !== 'done') return [];
  const tag =
    trial.name === 'neutral'
      ? RESULT_TAGS.sessionMetadata
      : trial.id === openCap.calibrationTrialId && openCap.cameraIndex.size > 0
        ? RESULT_TAGS.cameraMapping
        : null;
  return tag ? [{ tag, key: derivedFileKey(trial.sessionId, trial.id, tag) }] : [];
}

/** The device id as OpenCap's client keys it (`device_id.replace('-', '').upper()`). */
export const openCapDeviceKey = (deviceId: string) => deviceId.replace(/-/g, '').toUpperCase();

/**
 * The name OpenCap's client files a result under, where it reads one from the URL: the neutral's
 * scaled model (`<openSimModel>_scaled.osim`, what follows the URL's last `-`) and a synchronised
 * video (`<trial>_sync_Cam<i>.mp4`, the camera is what follows the last `_`); null keeps the stored name.
 */
export function openCapFileName(trial: TrialRow, result: TrialResultRow, openCap: OpenCapSession): string | null {
  if (result.tag === RESULT_TAGS.opensimModel && trial.name === 'neutral') return `${openCap.modelName}_scaled.osim`;
  const deviceId = result.meta?.device_id;
  const index = typeof deviceId === 'string' ? openCap.cameraIndex.get(deviceId) : undefined;
  if (result.tag === RESULT_TAGS.videoSync && index !== undefined) return `${trial.name}_sync_Cam${index}.mp4`;
  return null;
}

/** A model label as OpenCap names models: the file's name without `.osim`, letters, digits and `_`. */
const modelNameOf = (used: string) => used.replace(/\.osim$/i, '').replace(/[^A-Za-z0-9_]+/g, '_') || 'model';

export function createOpenCapSessions(deps: {
  sessions: SessionsRepository;
  subjects: SubjectsRepository;
  trials: TrialsRepository;
  files: FileStore;
}) {
  const { sessions, subjects, trials, files } = deps;

  async function storedJson(key: string | null): Promise<unknown> {
    const stored = key ? await files.read(key) : null;
    if (!stored) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return undefined;
    }
  }

  async function of(session: SessionRowDb): Promise<OpenCapSession> {
    const rows = (await trials.ofSession(session.id)).filter((trial) => !trial.trashed && trial.status === 'done');
    const cameras = await calibratedCamerasOf(trials, session.id);
    const calibrationTrialId = cameras[0]?.result.trialId ?? null;
    const deviceModels = new Map<string, string>();
    for (const video of calibrationTrialId ? await trials.videosOf(calibrationTrialId) : []) {
      const model = video.parameters.device_model;
      if (typeof model === 'string' && model) deviceModels.set(video.deviceId, model);
    }
    const neutral = rows.filter((trial) => trial.name === 'neutral').at(-1) ?? null;
    const mainSettings = neutral
      ? (await trials.resultsOf(neutral.id)).find((result) => result.tag === RESULT_TAGS.mainSettings)
      : undefined;
    const used = ((await storedJson(mainSettings?.storageKey ?? null)) as { openSimModel?: { used?: unknown } })
      ?.openSimModel?.used;
    const requested = (session.meta.settings as { openSimModel?: string } | undefined)?.openSimModel;
    return {
      cameraIndex: new Map(cameras.map((camera, index) => [camera.deviceId, index])),
      deviceModels,
      calibrationTrialId,
      neutral,
      modelName: modelNameOf(typeof used === 'string' ? used : (requested ?? DEFAULT_SESSION_SETTINGS.openSimModel)),
    };
  }

  /**
   * sessionMetadata.yaml in OpenCap's keys (as its defaultSessionMetadata.yaml and its sessions'
   * downloads have them), then Kinetrace's own. The subject's measures are the ones the neutral was
   * processed with; who the subject is goes only to those the disclosure shows it to.
   */
  async function metadataYaml(session: SessionRowDb, openCap: OpenCapSession, disclosure: Disclosure): Promise<string> {
    const subject: SubjectRow | undefined =
      session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
    const details = disclosure.subjectDetails ? subject : undefined;
    const given = (openCap.neutral?.meta as { subject?: { mass_kg?: unknown; height_m?: unknown } } | undefined)
      ?.subject;
    const measure = (recorded: unknown, stored: number | undefined) =>
      disclosure.processedData ? (typeof recorded === 'number' ? recorded : (stored ?? null)) : null;
    const meta = session.meta as { checkerboard?: Record<string, unknown>; settings?: Record<string, unknown> };
    const board = meta.checkerboard ?? {};
    const settings = { ...DEFAULT_SESSION_SETTINGS, ...meta.settings };
    const cameras = [...openCap.cameraIndex];
    const gender = details?.gender as keyof typeof GENDER_OPTIONS | null | undefined;
    return stringify({
      subjectID: details?.name ?? null,
      mass_kg: measure(given?.mass_kg, subject?.weightKg),
      height_m: measure(given?.height_m, subject?.heightM),
      gender_mf: gender ? (GENDER_OPTIONS[gender] ?? null) : null,
      openSimModel: openCap.modelName,
      posemodel: settings.pose_model,
      markerAugmentationSettings: { markerAugmenterModel: settings.augmenter_model },
      checkerBoard: {
        black2BlackCornersHeight_n: board.rows ?? null,
        black2BlackCornersWidth_n: board.cols ?? null,
        squareSideLength_mm: board.squareSize ?? null,
        placement: board.placement === 'Lying' ? 'ground' : board.placement === 'Perpendicular' ? 'backWall' : null,
      },
      calibrationSettings: { overwriteDeployedIntrinsics: false, saveSessionIntrinsics: false },
      iphoneModel: Object.fromEntries(
        cameras.map(([deviceId, index]) => [`Cam${index}`, openCap.deviceModels.get(deviceId) ?? null]),
      ),
      sessionID: session.id,
      sessionName: sessionNameOf(session),
      birth_year: details?.birthYear ?? null,
      sex_at_birth: details?.sexAtBirth ?? null,
      gender: details?.gender ?? null,
      subject_tags: details?.subjectTags ?? [],
      filterfrequency: settings.filter_frequency,
      framerate: settings.framerate,
      scalingsetup: settings.scaling_setup,
      datasharing: (meta.settings?.data_sharing as string | undefined) ?? null,
      cameras: Object.fromEntries(cameras.map(([deviceId, index]) => [`Cam${index}`, { deviceId }])),
      created_at: session.createdAt.toISOString(),
    });
  }

  /** mappingCamDevice.pickle: `{device id: camera index}` keyed as OpenCap's client looks devices up. */
  const cameraMapping = (openCap: OpenCapSession) =>
    pickleStringIntDict(
      Object.fromEntries([...openCap.cameraIndex].map(([deviceId, index]) => [openCapDeviceKey(deviceId), index])),
    );

  return {
    of,
    metadataYaml,
    cameraMapping,

    /**
     * A made-on-request file at `key`, for a media URL already checked (media-urls.ts) and issued on
     * `grantCode`; null when the key names no such file of a trial that lists it.
     */
    async derivedFile(key: string, grantCode: string): Promise<Buffer | null> {
      const match = DERIVED_KEY.exec(key);
      if (!match) return null;
      const [session, trial] = await Promise.all([sessions.findById(match[1]), trials.findById(match[2])]);
      if (!session || !trial || trial.sessionId !== session.id) return null;
      const openCap = await of(session);
      const listed = derivedResultsOf(trial, openCap).find((derived) => derived.key === key);
      if (!listed) return null;
      if (listed.tag === RESULT_TAGS.cameraMapping) return cameraMapping(openCap);
      const subject = session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
      const grant = grantStillHolds(grantCode, session, subject);
      return grant && Buffer.from(await metadataYaml(session, openCap, disclosureTo(grant, session, subject)));
    },
  };
}

export type OpenCapSessions = ReturnType<typeof createOpenCapSessions>;
