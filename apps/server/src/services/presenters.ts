import type { Session, SessionRow, Trial, TrialStatus } from '@kinetrace/contracts';
import type { SessionListItem, SessionRowDb } from '../repositories/sessions-repository.ts';
import type { TrialWithFiles } from '../repositories/trials-repository.ts';
import type { MediaUrlSigner } from './media-urls.ts';

/** API shapes of sessions and trials, from database rows. */

export function sessionNameOf(session: SessionRowDb): string {
  const name = session.meta.sessionName;
  return typeof name === 'string' && name ? name : session.id;
}

export function toTrial({ trial, videos, results }: TrialWithFiles, media: MediaUrlSigner): Trial {
  return {
    id: trial.id,
    session: trial.sessionId,
    name: trial.name,
    status: trial.status as TrialStatus,
    trashed: trial.trashed,
    trashed_at: trial.trashedAt?.toISOString() ?? null,
    tags: trial.tags,
    meta: trial.meta,
    results: results.map((result) => ({
      id: result.id,
      tag: result.tag,
      media: result.storageKey ? media.url(result.storageKey) : null,
      meta: result.meta ?? null,
    })),
    videos: videos.map((video) => ({
      id: video.id,
      device_id: video.deviceId,
      video: video.storageKey ? media.url(video.storageKey) : null,
      parameters: video.parameters,
    })),
    created_at: trial.createdAt.toISOString(),
    updated_at: trial.updatedAt.toISOString(),
  };
}

export function toSessionRow({ session, subjectName, trialsCount }: SessionListItem): SessionRow {
  return {
    id: session.id,
    sessionName: sessionNameOf(session),
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
  details: { subjectName: string | null; trialsCount: number; trials: Trial[]; isOwner: boolean; qrcode: string | null },
): Session {
  return {
    id: session.id,
    user: details.isOwner ? session.userId : null,
    subject: session.subjectId,
    name: details.subjectName,
    public: session.public,
    qrcode: details.isOwner ? details.qrcode : null,
    meta: { ...session.meta, sessionName: sessionNameOf(session) },
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
    trashed: session.trashed,
    trashed_at: session.trashedAt?.toISOString() ?? null,
    trials_count: details.trialsCount,
    trials: details.trials,
    is_owner: details.isOwner,
  };
}
