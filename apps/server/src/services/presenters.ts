import type { RecycleBin, Session, SessionRow, Trial, TrialStatus } from '@kinetrace/contracts';
import type { SessionListItem, SessionRowDb } from '../repositories/sessions-repository.ts';
import type { TrialRow, TrialWithFiles } from '../repositories/trials-repository.ts';
import { disclosed, fileKind, sharedTag, type FileKind, type SessionView } from './access.ts';
import type { MediaName, MediaUrlSigner } from './media-urls.ts';
import { derivedResultsOf, openCapFileName, OPENCAP_FILE_NAMES, type OpenCapSession } from './opencap-session.ts';

/** API shapes of sessions and trials, from database rows. */

export function sessionNameOf(session: Pick<SessionRowDb, 'id' | 'meta'>): string {
  const name = session.meta.sessionName;
  return typeof name === 'string' && name ? name : session.id;
}

/**
 * Meta only the owner reads: the names of the files they uploaded (an imported calibration's), which
 * may name the lab, the study or the person recorded.
 */
const OWNER_ONLY_META = new Set(['source_files', 'source_file']);

function metaFor(meta: Record<string, unknown>, view: SessionView): Record<string, unknown> {
  if (view.grant.kind === 'owner') return meta;
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !OWNER_ONLY_META.has(key)));
}

/** A neutral trial's meta records the subject as it was recorded; it goes out as the view discloses (access.ts). */
function trialMetaFor(meta: Record<string, unknown>, view: SessionView): Record<string, unknown> {
  const { disclosure } = view;
  const shown = metaFor(meta, view);
  const subject = meta.subject as Record<string, unknown> | undefined;
  if (!subject || (disclosure.subjectDetails && disclosure.processedData)) return shown;
  const { mass_kg, height_m, ...details } = subject;
  return {
    ...shown,
    subject: {
      ...(disclosure.subjectDetails ? details : {}),
      ...(disclosure.processedData ? { mass_kg, height_m } : {}),
    },
  };
}

/**
 * A trial as one viewer may see it: results and videos their session view discloses, with media URLs
 * issued on their access, named and completed as OpenCap's client reads them (opencap-session.ts).
 */
export function toTrial(
  { trial, videos, results }: TrialWithFiles,
  media: MediaUrlSigner,
  view: SessionView,
  openCap: OpenCapSession,
): Trial {
  const shown = (kind: FileKind) => disclosed(view.disclosure, kind);
  const url = (key: string | null, kind: FileKind, name: MediaName) =>
    key ? media.url(key, { grant: view.grant, kind }, name) : null;
  const stored = results.map((result) => {
    const kind = fileKind({ kind: 'result', tag: result.tag });
    const deviceId = result.meta?.device_id;
    const tag = sharedTag(result.tag);
    return {
      kind,
      result: {
        id: result.id,
        tag,
        media: url(result.storageKey, kind, {
          id: result.id,
          name: openCapFileName(trial, { ...result, tag }, openCap) ?? undefined,
        }),
        device_id: typeof deviceId === 'string' ? deviceId : null,
        meta: result.meta ? metaFor(result.meta, view) : null,
      },
    };
  });
  const derived = derivedResultsOf(trial, openCap).map(({ tag, key }) => ({
    kind: 'data' as const,
    result: {
      id: null,
      tag,
      media: url(key, 'data', { id: tag, name: OPENCAP_FILE_NAMES[tag] }),
      device_id: null,
      meta: null,
    },
  }));
  return {
    id: trial.id,
    session: trial.sessionId,
    session_id: trial.sessionId,
    name: trial.name,
    status: trial.status as TrialStatus,
    trashed: trial.trashed,
    trashed_at: trial.trashedAt?.toISOString() ?? null,
    tags: trial.tags,
    meta: trialMetaFor(trial.meta, view),
    results: [...stored, ...derived].filter(({ kind }) => shown(kind)).map(({ result }) => result),
    videos: (shown('media') ? videos : []).map((video) => ({
      id: video.id,
      device_id: video.deviceId,
      video: url(video.storageKey, 'media', { id: video.id }),
      parameters: video.parameters,
    })),
    created_at: trial.createdAt.toISOString(),
    updated_at: trial.updatedAt.toISOString(),
  };
}

export function toSessionRow({ session, sessionName, subjectName, trialsCount }: SessionListItem): SessionRow {
  return {
    id: session.id,
    sessionName,
    name: subjectName,
    subject: session.subjectId,
    trials_count: trialsCount,
    created_at: session.createdAt.toISOString(),
    trashed: session.trashed,
    trashed_at: session.trashedAt?.toISOString() ?? null,
    public: session.public,
  };
}

export function toRecycleBinTrial(trial: TrialRow): RecycleBin['sessions'][number]['trashed_trials'][number] {
  return {
    id: trial.id,
    name: trial.name,
    status: trial.status as TrialStatus,
    trashed_at: trial.trashedAt?.toISOString() ?? null,
  };
}

export function toSession(
  session: SessionRowDb,
  details: {
    subjectName: string | null;
    trialsCount: number;
    trials: Trial[];
    view: SessionView;
    qrcode: string | null;
  },
): Session {
  const isOwner = details.view.grant.kind === 'owner';
  return {
    id: session.id,
    user: isOwner ? session.userId : null,
    subject: session.subjectId,
    name: details.view.disclosure.subjectDetails ? details.subjectName : null,
    public: session.public,
    qrcode: isOwner ? details.qrcode : null,
    meta: { ...session.meta, sessionName: sessionNameOf(session) },
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
    trashed: session.trashed,
    trashed_at: session.trashedAt?.toISOString() ?? null,
    trials_count: details.trialsCount,
    trials: details.trials,
    is_owner: isOwner,
  };
}
