import { createHash } from 'node:crypto';
import { RESULT_TAGS, type DATA_SHARING_OPTIONS } from '@kinetrace/contracts';
import type { UserRow } from '../repositories/users-repository.ts';

type DataSharing = (typeof DATA_SHARING_OPTIONS)[number];

/** Who looks: a verified user (or nobody) and, for shared read-only viewing, a share token. */
export interface Viewer {
  user: Pick<UserRow, 'id'> | null;
  shareToken?: string;
}

export type Access = 'owner' | 'reader';

/**
 * How a viewer came to read a session: as its owner, because it is public, or through a share
 * token (the session's or its subject's). It decides what they see (`disclosureTo`) and travels,
 * signed, in the media URLs they get, so that a file is served only while it still holds.
 */
export type Grant = { kind: 'owner' } | { kind: 'public' } | { kind: 'share'; token: string };

interface SessionForAccess {
  userId: number;
  public: boolean;
  trashed: boolean;
  shareToken: string | null;
}

/** A session's subject, as far as its share link goes (none when the session has no subject). */
export type SharingSubject = { trashed: boolean; shareToken: string | null } | null | undefined;

/**
 * The subject's share link while it opens anything: none once the subject is trashed (restoring it
 * opens it again) or its owner revoked it (it is then null); a replaced link is simply no longer it.
 */
export const liveSubjectLink = (subject: SharingSubject): string | null =>
  subject && !subject.trashed ? subject.shareToken : null;

/**
 * §6: the owner has full control; anyone may read a public session; a share token of the session
 * or of its subject gives read-only access; a trashed session is the owner's alone. No access is
 * answered as 404 by the callers, so private data does not reveal that it exists.
 */
function sessionGrant(session: SessionForAccess, viewer: Viewer, subject: SharingSubject): Grant | null {
  if (viewer.user && viewer.user.id === session.userId) return { kind: 'owner' };
  if (session.trashed) return null;
  const token = viewer.shareToken;
  if (token && (token === session.shareToken || token === liveSubjectLink(subject))) return { kind: 'share', token };
  return session.public ? { kind: 'public' } : null;
}

export function subjectAccess(
  subject: { userId: number; trashed: boolean; shareToken: string | null },
  viewer: Viewer,
): Access | null {
  if (viewer.user && viewer.user.id === subject.userId) return 'owner';
  if (viewer.shareToken && viewer.shareToken === liveSubjectLink(subject)) return 'reader';
  return null;
}

/**
 * What of a session a viewer may see. The session's data-sharing choice (spec §3, made with the
 * subject at the neutral step) is the subject's consent, and it binds every viewer but the owner,
 * whether they came through the public toggle or a share link, on every way out: the API, the
 * zip and the media URLs (docs/data-sharing.md).
 *
 * - `subjectDetails`: the subject's name, birth year, sex, gender, tags and characteristics. Only
 *   for those who may read the subject itself (its owner, the holder of the subject's share link),
 *   as GET /subjects/{id}/ answers; never for a public session's visitors.
 * - `processedData`: results (keypoints, joint angles, the scaled model, the 3D viewer's data) and
 *   the subject's mass and height. Mass and height go with processed data: the scaled model embeds
 *   both (its body masses sum to the mass, its segments are scaled to the height), so withholding
 *   them beside it would hide nothing, and without them the model cannot be used.
 * - `media`: the recorded videos and the images and videos made from them (neutral and
 *   calibration images, synchronised videos), which show the person.
 * - `deidentifiedVideos`: the synchronised videos with every face blurred (video-sync-deidentified),
 *   given as the trial's synchronised videos to those who may see the person only de-identified.
 *
 * | data_sharing                                       | processedData | media | deidentifiedVideos |
 * | 'Share processed data and identified videos'       | yes           | yes   | no (they get the originals) |
 * | 'Share processed data and de-identified videos'    | yes           | no    | yes   |
 * | 'Share processed data'                             | yes           | no    | no    |
 * | 'Share no data'                                    | no            | no    | no    |
 * | none recorded (no neutral yet, seeded or imported) | yes           | no: publishing covers the results, not images of a person nobody asked | no |
 */
export interface Disclosure {
  subjectDetails: boolean;
  processedData: boolean;
  media: boolean;
  deidentifiedVideos: boolean;
}

const FULL_DISCLOSURE: Disclosure = {
  subjectDetails: true,
  processedData: true,
  media: true,
  deidentifiedVideos: false,
};

function dataSharingOf(session: { meta: Record<string, unknown> }): DataSharing | undefined {
  const settings = session.meta.settings as { data_sharing?: DataSharing } | undefined;
  return settings?.data_sharing;
}

export function disclosureTo(
  grant: Grant,
  session: { meta: Record<string, unknown> },
  subject: SharingSubject,
): Disclosure {
  if (grant.kind === 'owner') return FULL_DISCLOSURE;
  const sharing = dataSharingOf(session);
  return {
    subjectDetails: grant.kind === 'share' && grant.token === liveSubjectLink(subject),
    processedData: sharing !== 'Share no data',
    media: sharing === 'Share processed data and identified videos',
    deidentifiedVideos: sharing === 'Share processed data and de-identified videos',
  };
}

/** What one viewer may see of one session, and the access the media URLs they get are issued on. */
export interface SessionView {
  grant: Grant;
  disclosure: Disclosure;
}

export const OWNER_VIEW: SessionView = { grant: { kind: 'owner' }, disclosure: FULL_DISCLOSURE };

export function sessionView(
  session: SessionForAccess & { meta: Record<string, unknown> },
  viewer: Viewer,
  subject: SharingSubject,
): SessionView | null {
  const grant = sessionGrant(session, viewer, subject);
  return grant && { grant, disclosure: disclosureTo(grant, session, subject) };
}

/**
 * The one rule for which sessions of a subject go out to a viewer, and how (its sync and its async
 * download): the ones the viewer may read, never trashed ones, each as that viewer may see it.
 */
export function subjectSessionView(
  session: SessionForAccess & { meta: Record<string, unknown> },
  viewer: Viewer,
  subject: SharingSubject,
): SessionView | null {
  return session.trashed ? null : sessionView(session, viewer, subject);
}

/** Results that are pictures of the person rather than data computed from them. */
const MEDIA_RESULT_TAGS = new Set<string>([
  RESULT_TAGS.videoSync,
  RESULT_TAGS.neutralImage,
  RESULT_TAGS.calibrationImage,
]);

/** What a stored file of a trial is: media (a video, an image of the person), a de-identified video, or processed data. */
export type FileKind = 'media' | 'deidentified' | 'data';

export const fileKind = (file: { kind: 'video' } | { kind: 'result'; tag: string }): FileKind => {
  if (file.kind === 'result' && file.tag === RESULT_TAGS.videoSyncDeidentified) return 'deidentified';
  return file.kind === 'video' || MEDIA_RESULT_TAGS.has(file.tag) ? 'media' : 'data';
};

export const disclosed = (disclosure: Disclosure, kind: FileKind) =>
  kind === 'media'
    ? disclosure.media
    : kind === 'deidentified'
      ? disclosure.deidentifiedVideos
      : disclosure.processedData;

/**
 * The tag a result goes out under: a de-identified synchronised video goes to its readers as the
 * trial's synchronised video of its camera (the viewer, the zip and OpenCap's client take it as
 * such); every other result under its own.
 */
export const sharedTag = (tag: string): string =>
  tag === RESULT_TAGS.videoSyncDeidentified ? RESULT_TAGS.videoSync : tag;

/**
 * A grant as it travels in a media URL: the share token itself never does, only a digest of it (hex,
 * since OpenCap's client cuts URLs at `-` and `_`; 88 bits).
 */
export function grantCode(grant: Grant): string {
  if (grant.kind === 'owner') return 'o';
  if (grant.kind === 'public') return 'p';
  return `s${createHash('sha256').update(grant.token).digest('hex').slice(0, 22)}`;
}

/**
 * The grant a media URL was issued on, if it still holds for this session now: the owner's always;
 * 'public' while the session is public; a share link's while its token is still the session's or
 * its subject's live link. A trashed session is the owner's alone.
 */
export function grantStillHolds(code: string, session: SessionForAccess, subject: SharingSubject): Grant | null {
  if (code === 'o') return { kind: 'owner' };
  if (session.trashed) return null;
  if (code === 'p') return session.public ? { kind: 'public' } : null;
  const token = [session.shareToken, liveSubjectLink(subject)].find(
    (candidate) => candidate && grantCode({ kind: 'share', token: candidate }) === code,
  );
  return token ? { kind: 'share', token } : null;
}
