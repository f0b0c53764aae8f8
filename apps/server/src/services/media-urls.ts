import { createHmac, timingSafeEqual } from 'node:crypto';
import { SESSION_DURATION_MS } from '@kinetrace/contracts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import { disclosed, disclosureTo, grantCode, grantStillHolds, type Grant } from './access.ts';

/** On what a media URL is issued: how its reader came to the session, and whether the file is media or processed data. */
export interface MediaAccess {
  grant: Grant;
  kind: 'media' | 'data';
}

/**
 * Signed, expiring URLs for stored files, so that <video> and <img> elements (which cannot send the
 * Authorization header) and other hosts can fetch them. The signature covers the access the URL was
 * issued on, and every request re-checks that this access still holds: a session made private, a
 * trial trashed, a share link replaced or a data-sharing choice narrowed stops its URLs at once,
 * while its owner's (and everyone's who still may read it) keep playing.
 */
export interface MediaUrlSigner {
  /** Without `access`: a file for its owner (their own downloads, pictures, analyses). */
  url(key: string, access?: MediaAccess): string;
  /** Whether the URL is ours, not expired, and the access it was issued on still holds now. */
  allows(key: string, query: { expires: number; signature: string; access: string }): Promise<boolean>;
}

export const MEDIA_ROUTE = '/api/media/files/';

/** A trial's files live under `sessions/<session>/trials/<trial>/` (storage-keys.ts). */
const TRIAL_KEY = /^sessions\/([0-9a-f-]{36})\/trials\/([0-9a-f-]{36})\//;

export function createMediaUrlSigner(
  secret: string,
  now: () => Date,
  stores: { sessions: SessionsRepository; subjects: SubjectsRepository; trials: TrialsRepository },
  lifetimeMs = SESSION_DURATION_MS,
): MediaUrlSigner {
  const sign = (key: string, expiresS: number, access: string) =>
    createHmac('sha256', secret).update(`${key}\n${expiresS}\n${access}`).digest('base64url');

  /** A reader's access to a trial's file, as of now. */
  async function stillReadable(key: string, access: string): Promise<boolean> {
    const [code, kind] = access.split('.');
    const match = TRIAL_KEY.exec(key);
    if (!match || (kind !== 'media' && kind !== 'data')) return false;
    const [session, trial] = await Promise.all([stores.sessions.findById(match[1]), stores.trials.findById(match[2])]);
    if (!session || !trial || trial.sessionId !== session.id || trial.trashed) return false;
    const subject = session.subjectId === null ? undefined : await stores.subjects.findById(session.subjectId);
    const grant = grantStillHolds(code, session, subject?.shareToken ?? null);
    return grant !== null && disclosed(disclosureTo(grant, session, subject?.shareToken ?? null), kind);
  }

  return {
    url(key, access) {
      // Rounded to the hour so that the same file keeps the same URL (and stays cached) for a while.
      const expiresS = Math.ceil((now().getTime() + lifetimeMs) / 3_600_000) * 3600;
      const code = !access || access.grant.kind === 'owner' ? 'o' : `${grantCode(access.grant)}.${access.kind}`;
      return `${MEDIA_ROUTE}${key}?expires=${expiresS}&signature=${sign(key, expiresS, code)}&access=${code}`;
    },
    async allows(key, { expires, signature, access }) {
      if (!Number.isInteger(expires) || expires * 1000 < now().getTime()) return false;
      const expected = Buffer.from(sign(key, expires, access));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
      return access === 'o' || stillReadable(key, access);
    },
  };
}
