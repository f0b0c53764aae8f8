import type { Session, SessionRow, Trial, TrialStatus } from '@kinetrace/contracts';
import type { SessionListItem, SessionRowDb } from '../repositories/sessions-repository.ts';
import type { TrialWithFiles } from '../repositories/trials-repository.ts';
import { disclosed, fileKind, type Disclosure, type SessionView } from './access.ts';
import type { MediaUrlSigner } from './media-urls.ts';

/** API shapes of sessions and trials, from database rows. */

export function sessionNameOf(session: Pick<SessionRowDb, 'id' | 'meta'>): string {
  const name = session.meta.sessionName;
  return typeof name === 'string' && name ? name : session.id;
}

/** A neutral trial's meta records the subject as it was recorded; it goes out as the view discloses (access.ts). */
function trialMetaFor(meta: Record<string, unknown>, disclosure: Disclosure): Record<string, unknown> {
  const subject = meta.subject as Record<string, unknown> | undefined;
  if (!subject || (disclosure.subjectDetails && disclosure.processedData)) return meta;
  const { mass_kg, height_m, ...details } = subject;
  const shown = {
    ...(disclosure.subjectDetails ? details : {}),
    ...(disclosure.processedData ? { mass_kg, height_m } : {}),
  };
  return { ...meta, subject: shown };
}

/** A trial as one viewer may see it: results and videos their session view discloses, with media URLs issued on their access. */
export function toTrial({ trial, videos, results }: TrialWithFiles, media: MediaUrlSigner, view: SessionView): Trial {
  const shown = (kind: 'media' | 'data') => disclosed(view.disclosure, kind);
  const url = (key: string | null, kind: 'media' | 'data') =>
    key ? media.url(key, { grant: view.grant, kind }) : null;
  return {
    id: trial.id,
    session: trial.sessionId,
    name: trial.name,
    status: trial.status as TrialStatus,
    trashed: trial.trashed,
    trashed_at: trial.trashedAt?.toISOString() ?? null,
    tags: trial.tags,
    meta: trialMetaFor(trial.meta, view.disclosure),
    results: results
      .map((result) => ({ result, kind: fileKind({ kind: 'result', tag: result.tag }) }))
      .filter(({ kind }) => shown(kind))
      .map(({ result, kind }) => ({
        id: result.id,
        tag: result.tag,
        media: url(result.storageKey, kind),
        meta: result.meta ?? null,
      })),
    videos: (shown('media') ? videos : []).map((video) => ({
      id: video.id,
      device_id: video.deviceId,
      video: url(video.storageKey, 'media'),
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
