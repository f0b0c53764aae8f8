import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import {
  CHECKERBOARD_DEFAULTS,
  clampFilterFrequency,
  DEFAULT_SESSION_SETTINGS,
  FRAMERATES,
  importMessages,
  messages,
  type EmptyTrashRequest,
  type RecycleBin,
  type Session,
  type SessionSettingsResponse,
  type SetMetadataQuery,
  type SettingChoices,
  type validSessionsRequestSchema,
} from '@kinetrace/contracts';
import type { z } from 'zod';
import { HttpError, notFound } from '../http/http-errors.ts';
import type { DevicesRepository } from '../repositories/devices-repository.ts';
import type { SessionRowDb, SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { OWNER_VIEW, sessionView, subjectAccess, type Access, type SessionView, type Viewer } from './access.ts';
import type { AuthContext } from './auth-service.ts';
import type { MediaUrlSigner } from './media-urls.ts';
import type { OpenCapSession, OpenCapSessions } from './opencap-session.ts';
import { toRecycleBinTrial, toSession, toSessionRow, toTrial } from './presenters.ts';
import type { Removal } from './removal.ts';
import { latestCalibration } from './session-calibration.ts';
import { trialFilesPrefix } from './storage-keys.ts';

type ValidSessionsQuery = z.output<typeof validSessionsRequestSchema>;

export interface SessionServiceDeps {
  sessions: SessionsRepository;
  subjects: SubjectsRepository;
  trials: TrialsRepository;
  devices: DevicesRepository;
  files: FileStore;
  removal: Removal;
  media: MediaUrlSigner;
  openCap: OpenCapSessions;
  /** The phone capture page's address, completed by the pairing token (the QR code's content). */
  captureUrl: (pairingToken: string) => string;
  /** What each processing choice runs on this server (what the operator installed), asked each time: installs need no restart. */
  settingChoices: () => SettingChoices;
  /** Whether this server takes keypoints from the phones (PHONE_KEYPOINTS). */
  phoneKeypoints: boolean;
  now: () => Date;
}

export function createSessionService(deps: SessionServiceDeps) {
  const { sessions, subjects, trials, devices, files, removal, media, openCap, captureUrl, settingChoices, now } = deps;

  /** The session, how the viewer may use it and what they may see of it; 404 when the viewer may not see it at all. */
  async function access(
    viewer: Viewer,
    id: string,
  ): Promise<{ session: SessionRowDb; access: Access; view: SessionView }> {
    const session = await sessions.findById(id);
    if (session) {
      const subject = session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
      const view = sessionView(session, viewer, subject);
      if (view) return { session, access: view.grant.kind === 'owner' ? 'owner' : 'reader', view };
    }
    throw notFound(messages.sessionNotFound);
  }

  /** Every session of the user, newest first: the lists that have no pages. */
  const everySessionOf = (userId: number, filter: { inBin?: boolean; includeTrashed: boolean }) =>
    sessions.list({
      userId,
      ...filter,
      onlyTrashed: false,
      skipNoTrials: false,
      sort: 'created_at',
      sortDesc: true,
      start: 0,
      quantity: -1,
    });

  /** The caller's own session (every change needs ownership). */
  async function ownSession(context: AuthContext, id: string): Promise<SessionRowDb> {
    const session = await sessions.findById(id);
    if (!session || session.userId !== context.user.id) throw notFound(messages.sessionNotFound);
    return session;
  }

  async function present(session: SessionRowDb, view: SessionView): Promise<Session> {
    const isOwner = view.grant.kind === 'owner';
    const rows = (await trials.ofSession(session.id)).filter((trial) => isOwner || !trial.trashed);
    const withFiles = await trials.withFiles(rows);
    const asOpenCap = await openCap.of(session);
    return toSession(session, {
      subjectName: await sessions.subjectName(session.subjectId),
      trialsCount: await sessions.trialsCount(session.id),
      trials: withFiles.map((trial) => toTrial(trial, media, view, asOpenCap)),
      view,
      qrcode: isOwner ? await QRCode.toDataURL(captureUrl(session.pairingToken), { margin: 1, width: 256 }) : null,
    });
  }

  const newToken = () => randomBytes(24).toString('base64url');

  /** Copies a trial with its videos and results (rows and files) into another session, which then owns them alone. */
  async function copyTrial(trial: TrialRow, sessionId: string): Promise<void> {
    const copy = await trials.insert({
      sessionId,
      name: trial.name,
      status: trial.status,
      tags: trial.tags,
      meta: { ...trial.meta, copied_from: { session_id: trial.sessionId, trial_id: trial.id } },
    });
    const fromPrefix = trialFilesPrefix(trial.sessionId, trial.id);
    const copyFile = async (key: string | null): Promise<string | null> => {
      if (key === null) return null;
      const relative = key.startsWith(`${fromPrefix}/`) ? key.slice(fromPrefix.length + 1) : key.split('/').at(-1)!;
      const target = `${trialFilesPrefix(sessionId, copy.id)}/${relative}`;
      const source = await files.read(key);
      if (!source) return null;
      await files.put(target, source.stream);
      return target;
    };
    for (const video of await trials.videosOf(trial.id)) {
      await trials.insertVideo({
        trialId: copy.id,
        deviceId: video.deviceId,
        storageKey: await copyFile(video.storageKey),
        parameters: video.parameters,
      });
    }
    for (const result of await trials.resultsOf(trial.id)) {
      await trials.insertResult({
        trialId: copy.id,
        tag: result.tag,
        storageKey: await copyFile(result.storageKey),
        meta: result.meta,
      });
    }
  }

  return {
    /** The session as OpenCap's client numbers and names it, for presenting one of its trials. */
    async openCapOf(sessionId: string): Promise<OpenCapSession> {
      const session = await sessions.findById(sessionId);
      if (!session) throw notFound(messages.sessionNotFound);
      return openCap.of(session);
    },

    access,
    ownSession,
    present,

    /** A new session, or with `reuseEmpty` the caller's newest one that nothing was done in yet (newSessionQuerySchema). */
    async create(context: AuthContext, { reuseEmpty = false }: { reuseEmpty?: boolean } = {}): Promise<Session> {
      const empty = reuseEmpty ? await sessions.newestEmpty(context.user.id) : undefined;
      if (empty) return present(empty, OWNER_VIEW);
      const session = await sessions.insert({
        userId: context.user.id,
        pairingToken: newToken(),
        shareToken: newToken(),
        meta: { settings: { ...DEFAULT_SESSION_SETTINGS } },
      });
      return present(session, OWNER_VIEW);
    },

    /**
     * §7 new_subject: the next subject's session, with this one's settings, board, calibration and
     * phones. The phones keep polling the pairing token of the QR code they scanned, so the new
     * session takes that token over (this one gets a fresh one) and they follow it without scanning.
     */
    async newSubject(context: AuthContext, id: string): Promise<Session> {
      const source = await ownSession(context, id);
      const busy = (await trials.ofSession(id)).find(
        (trial) => !trial.trashed && (trial.status === 'recording' || trial.status === 'uploading'),
      );
      if (busy) throw new HttpError(409, { detail: importMessages.newSubjectWhileRecording(busy.name) });
      const { settings, checkerboard } = source.meta as { settings?: unknown; checkerboard?: unknown };
      await sessions.update(id, { pairingToken: newToken() });
      const session = await sessions.insert({
        userId: context.user.id,
        pairingToken: source.pairingToken,
        shareToken: newToken(),
        meta: {
          settings: settings ?? { ...DEFAULT_SESSION_SETTINGS },
          ...(checkerboard !== undefined && { checkerboard }),
        },
      });
      await devices.copyToSession(id, session.id);
      const calibration = await latestCalibration(trials, id);
      if (calibration) await copyTrial(calibration, session.id);
      return present(session, OWNER_VIEW);
    },

    async get(viewer: Viewer, id: string): Promise<Session> {
      const { session, view } = await access(viewer, id);
      return present(session, view);
    },

    async qrCode(context: AuthContext, id: string): Promise<string> {
      const session = await ownSession(context, id);
      return QRCode.toDataURL(captureUrl(session.pairingToken), { margin: 1, width: 256 });
    },

    async setPublic(context: AuthContext, id: string, isPublic: boolean): Promise<Session> {
      await ownSession(context, id);
      return present(await sessions.update(id, { public: isPublic }), OWNER_VIEW);
    },

    /** §2.8 list: the caller's sessions, or a public or shared session for someone else. */
    async listValid(viewer: Viewer, query: ValidSessionsQuery) {
      const page = {
        includeTrashed: query.include_trashed,
        onlyTrashed: query.only_trashed,
        skipNoTrials: query.skip_no_trials,
        sort: query.sort,
        sortDesc: query.sort_desc,
        start: query.start,
        quantity: query.quantity,
      };
      if (query.public_session_id) {
        const { session, view } = await access(viewer, query.public_session_id).catch(() => ({
          session: undefined,
          view: undefined,
        }));
        const ids = session ? [session.id] : [];
        const { items, total } = await sessions.list({ ...page, ids, includeTrashed: false, onlyTrashed: false });
        const rows = items.map((item) =>
          toSessionRow(view?.disclosure.subjectDetails ? item : { ...item, subjectName: null }),
        );
        return { sessions: rows, total };
      }
      if (
        query.subject_id &&
        (!viewer.user || (await subjects.findById(query.subject_id))?.userId !== viewer.user.id)
      ) {
        // A subject's share token lists that subject's sessions (read only), never trashed ones.
        const subject = await subjects.findById(query.subject_id);
        if (!subject || subjectAccess(subject, viewer) !== 'reader') return { sessions: [], total: 0 };
        const { items, total } = await sessions.list({
          ...page,
          subjectId: subject.id,
          includeTrashed: false,
          onlyTrashed: false,
        });
        return { sessions: items.map(toSessionRow), total };
      }
      if (!viewer.user) return { sessions: [], total: 0 };
      const { items, total } = await sessions.list({ ...page, userId: viewer.user.id, subjectId: query.subject_id });
      return { sessions: items.map(toSessionRow), total };
    },

    /**
     * OpenCap's client's lists (GET /sessions/ and /sessions/valid/): the caller's sessions in full,
     * trials and all, newest first, never trashed ones; `valid` as OpenCap's API means it, those with
     * a processed neutral.
     */
    async listInFull(context: AuthContext, onlyValid: boolean): Promise<Session[]> {
      const { items } = await everySessionOf(context.user.id, { includeTrashed: false });
      const listed: Session[] = [];
      for (const { session: row } of items) {
        const hasNeutral = async () =>
          (await trials.ofSession(row.id)).some(
            (trial) => trial.name === 'neutral' && trial.status === 'done' && !trial.trashed,
          );
        const session = (!onlyValid || (await hasNeutral())) && (await sessions.findById(row.id));
        if (session) listed.push(await present(session, OWNER_VIEW));
      }
      return listed;
    },

    async search(context: AuthContext, text: string, includeTrashed: boolean) {
      const { items } = await sessions.list({
        userId: context.user.id,
        search: text,
        includeTrashed,
        onlyTrashed: false,
        skipNoTrials: false,
        sort: 'created_at',
        sortDesc: true,
        start: 0,
        quantity: 100,
      });
      return items.map(toSessionRow);
    },

    async rename(context: AuthContext, id: string, name: string): Promise<Session> {
      const session = await ownSession(context, id);
      return present(await sessions.update(id, { meta: { ...session.meta, sessionName: name } }), OWNER_VIEW);
    },

    async setSubject(context: AuthContext, id: string, subjectId: number): Promise<Session> {
      await ownSession(context, id);
      const subject = await subjects.findById(subjectId);
      if (!subject || subject.userId !== context.user.id || subject.trashed) throw notFound(messages.subjectNotFound);
      return present(await sessions.update(id, { subjectId }), OWNER_VIEW);
    },

    /** Stores calibration (cb_*) and neutral (settings_*) settings in the session's meta, with §5's clamps. */
    async setMetadata(context: AuthContext, id: string, query: SetMetadataQuery) {
      const session = await ownSession(context, id);
      const meta = { ...session.meta } as Record<string, unknown> & {
        checkerboard?: Record<string, unknown>;
        settings?: Record<string, unknown>;
      };
      const warnings: string[] = [];
      if (
        query.cb_rows !== undefined ||
        query.cb_cols !== undefined ||
        query.cb_square !== undefined ||
        query.cb_placement !== undefined
      ) {
        const board = {
          rows: CHECKERBOARD_DEFAULTS.rows,
          cols: CHECKERBOARD_DEFAULTS.cols,
          squareSize: CHECKERBOARD_DEFAULTS.squareSizeMm,
          placement: CHECKERBOARD_DEFAULTS.placement,
          ...meta.checkerboard,
        };
        meta.checkerboard = {
          ...board,
          ...(query.cb_rows !== undefined && { rows: Number(query.cb_rows) }),
          ...(query.cb_cols !== undefined && { cols: Number(query.cb_cols) }),
          ...(query.cb_square !== undefined && { squareSize: Number(query.cb_square) }),
          ...(query.cb_placement !== undefined && { placement: query.cb_placement }),
        };
      }
      const settings: Record<string, unknown> = { ...DEFAULT_SESSION_SETTINGS, ...meta.settings };
      const assign = (key: string, value: unknown) => {
        if (value !== undefined) settings[key] = value;
      };
      assign('data_sharing', query.settings_data_sharing);
      assign('scaling_setup', query.settings_scaling_setup);
      assign('pose_model', query.settings_pose_model);
      assign('framerate', query.settings_framerate === undefined ? undefined : Number(query.settings_framerate));
      assign('openSimModel', query.settings_openSimModel);
      assign('augmenter_model', query.settings_augmenter_model);
      assign('phone_keypoints', query.settings_phone_keypoints);
      assign('pose_rate', query.settings_pose_rate);
      if (query.settings_filter_frequency !== undefined || query.settings_framerate !== undefined) {
        const decision = clampFilterFrequency(
          (query.settings_filter_frequency ?? settings.filter_frequency) as string | number,
          Number(settings.framerate),
        );
        settings.filter_frequency = decision.value;
        if (decision.warning) warnings.push(decision.warning);
      }
      meta.settings = settings;
      if (query.settings_session_name) meta.sessionName = query.settings_session_name;
      const updated = await sessions.update(id, { meta });
      return { meta: updated.meta, warnings };
    },

    settings(): SessionSettingsResponse {
      return { framerates: [...FRAMERATES], choices: settingChoices(), phone_keypoints: deps.phoneKeypoints };
    },

    async trash(context: AuthContext, id: string): Promise<Session> {
      await ownSession(context, id);
      return present(await sessions.update(id, { trashed: true, trashedAt: now() }), OWNER_VIEW);
    },

    async restore(context: AuthContext, id: string): Promise<Session> {
      await ownSession(context, id);
      return present(await sessions.update(id, { trashed: false, trashedAt: null }), OWNER_VIEW);
    },

    async permanentRemove(context: AuthContext, id: string): Promise<void> {
      await ownSession(context, id);
      await removal.session(id);
    },

    /**
     * §2.18 what the bin holds: trashed sessions, and active sessions holding trashed trials (whose
     * trials would otherwise be in no list at all), each with its trashed trials; newest first.
     */
    async recycleBin(context: AuthContext): Promise<RecycleBin> {
      const [{ items }, trashedTrials] = await Promise.all([
        everySessionOf(context.user.id, { inBin: true, includeTrashed: true }),
        trials.trashedOfUser(context.user.id),
      ]);
      const binned = items.map((item) => {
        const trashed = trashedTrials.filter((trial) => trial.sessionId === item.session.id);
        const lastTrashed = Math.max(
          item.session.trashedAt?.getTime() ?? 0,
          ...trashed.map((trial) => trial.trashedAt?.getTime() ?? 0),
        );
        return { lastTrashed, row: { ...toSessionRow(item), trashed_trials: trashed.map(toRecycleBinTrial) } };
      });
      return { sessions: binned.sort((a, b) => b.lastTrashed - a.lastTrashed).map(({ row }) => row) };
    },

    /**
     * §2.18 empty bin: the trashed trials the bin listed first, then the trashed sessions it listed.
     * Only what is still the caller's and still trashed goes; anything trashed since the bin was shown stays.
     */
    async emptyTrash(context: AuthContext, listed: EmptyTrashRequest): Promise<{ trials: number; sessions: number }> {
      const owned = async (sessionId: string) => (await sessions.findById(sessionId))?.userId === context.user.id;
      let removedTrials = 0;
      for (const id of new Set(listed.trials)) {
        const trial = await trials.findById(id);
        if (!trial?.trashed || !(await owned(trial.sessionId))) continue;
        await removal.trial(trial.sessionId, trial.id);
        removedTrials++;
      }
      let removedSessions = 0;
      for (const id of new Set(listed.sessions)) {
        const session = await sessions.findById(id);
        if (!session?.trashed || session.userId !== context.user.id) continue;
        await removal.session(session.id);
        removedSessions++;
      }
      return { trials: removedTrials, sessions: removedSessions };
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
