import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SESSION_DURATION_MS } from '@kinetrace/contracts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import { disclosed, disclosureTo, grantCode, grantStillHolds, type FileKind, type Grant } from './access.ts';

/** On what a media URL is issued: how its reader came to the session, and whether the file is media, a de-identified video or processed data. */
export interface MediaAccess {
  grant: Grant;
  kind: FileKind;
}

/** How a URL names its file: `<id>-<name>` (a result's or video's id; without one, a digest of the key). */
export interface MediaName {
  id?: string | number;
  /** The file's name; the stored file's own name when absent. */
  name?: string;
}

/**
 * Signed, expiring URLs for stored files, so that <video> and <img> elements (which cannot send the
 * Authorization header) and other hosts can fetch them. The signature covers the access the URL was
 * issued on, and every request re-checks that this access still holds: a session made private, a
 * trial trashed, a share link replaced or a data-sharing choice narrowed stops its URLs at once,
 * while its owner's (and everyone's who still may read it) keep playing.
 *
 * URLs are absolute (PUBLIC_URL) and shaped as OpenCap's client parses its own (opencap-processing
 * utils.py): the last path segment is `<id>-<file name>` (the model's name is what follows the last
 * `-` up to `?`, a synchronised video's camera what follows the last `_`), so the name has no `-`
 * and the query holds none of `-`, `_` or `.` (hex signature, access as letters and hex).
 */
export interface MediaUrlSigner {
  /** Without `access`: a file for its owner (their own downloads, pictures, analyses). */
  url(key: string, access?: MediaAccess, name?: MediaName): string;
  /** Whether the URL is ours, not expired, and the access it was issued on still holds now. */
  allows(key: string, query: { expires: number; signature: string; access: string }): Promise<boolean>;
}

export const MEDIA_ROUTE = '/api/media/files/';

/** The last path segment after the stored key: `<id>-<name>`, letters, digits, `_` and `.` on each side. */
export const MEDIA_NAME_SEGMENT = /^[A-Za-z0-9_.]{1,100}-[A-Za-z0-9_.]{1,200}$/;

/** The `access` query value: `o` (owner), else the grant's code and the kind of file. */
const ACCESS_QUERY = /^(?:o|(p|s[0-9a-f]{22})(media|deidentified|data))$/;

/** The grant code an `access` query value carries (`o` for the owner's URLs); null when it is none. */
export function grantCodeOf(access: string): string | null {
  const parsed = ACCESS_QUERY.exec(access);
  return parsed ? (parsed[1] ?? 'o') : null;
}

/** A trial's files live under `sessions/<session>/trials/<trial>/` (storage-keys.ts). */
const TRIAL_KEY = /^sessions\/([0-9a-f-]{36})\/trials\/([0-9a-f-]{36})\//;

/** A file name as the URL's last segment may carry it: no `-` (the client splits there), nothing outside [A-Za-z0-9_.]. */
export const urlFileName = (name: string) => name.replace(/[^A-Za-z0-9_.]+/g, '_').slice(0, 200) || 'file';

function nameSegment(key: string, name: MediaName = {}): string {
  const id = name.id ?? createHash('sha256').update(key).digest('hex').slice(0, 12);
  return `${urlFileName(String(id))}-${urlFileName(name.name ?? key.split('/').at(-1) ?? '')}`;
}

export function createMediaUrlSigner(
  secret: string,
  publicUrl: string,
  now: () => Date,
  stores: { sessions: SessionsRepository; subjects: SubjectsRepository; trials: TrialsRepository },
  lifetimeMs = SESSION_DURATION_MS,
): MediaUrlSigner {
  const sign = (key: string, expiresS: number, access: string) =>
    createHmac('sha256', secret).update(`${key}\n${expiresS}\n${access}`).digest('hex');

  /** A reader's access to a trial's file, as of now. */
  async function stillReadable(key: string, code: string, kind: FileKind): Promise<boolean> {
    const match = TRIAL_KEY.exec(key);
    if (!match) return false;
    const [session, trial] = await Promise.all([stores.sessions.findById(match[1]), stores.trials.findById(match[2])]);
    if (!session || !trial || trial.sessionId !== session.id || trial.trashed) return false;
    const subject = session.subjectId === null ? undefined : await stores.subjects.findById(session.subjectId);
    const grant = grantStillHolds(code, session, subject);
    return grant !== null && disclosed(disclosureTo(grant, session, subject), kind);
  }

  return {
    url(key, access, name) {
      // Rounded to the hour so that the same file keeps the same URL (and stays cached) for a while.
      const expiresS = Math.ceil((now().getTime() + lifetimeMs) / 3_600_000) * 3600;
      const code = !access || access.grant.kind === 'owner' ? 'o' : `${grantCode(access.grant)}${access.kind}`;
      const path = `${MEDIA_ROUTE}${key}/${nameSegment(key, name)}`;
      return `${publicUrl}${path}?expires=${expiresS}&signature=${sign(key, expiresS, code)}&access=${code}`;
    },
    async allows(key, { expires, signature, access }) {
      const parsed = ACCESS_QUERY.exec(access);
      if (!parsed || !Number.isInteger(expires) || expires * 1000 < now().getTime()) return false;
      const expected = Buffer.from(sign(key, expires, access));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
      return access === 'o' || stillReadable(key, parsed[1], parsed[2] as FileKind);
    },
  };
}
