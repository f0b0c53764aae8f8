import type { UserRow } from '../repositories/users-repository.ts';

/** Who looks: a verified user (or nobody) and, for shared read-only viewing, a share token. */
export interface Viewer {
  user: UserRow | null;
  shareToken?: string;
}

export type Access = 'owner' | 'reader';

/**
 * §6: the owner has full control; anyone may read a public session; a share token of the session
 * or of its subject gives read-only access; a trashed session is the owner's alone. No access is
 * answered as 404 by the callers, so private data does not reveal that it exists.
 */
export function sessionAccess(
  session: { userId: number; public: boolean; trashed: boolean; shareToken: string | null },
  viewer: Viewer,
  subjectShareToken: string | null,
): Access | null {
  if (viewer.user && viewer.user.id === session.userId) return 'owner';
  if (session.trashed) return null;
  if (session.public) return 'reader';
  const token = viewer.shareToken;
  if (token && (token === session.shareToken || token === subjectShareToken)) return 'reader';
  return null;
}

export function subjectAccess(subject: { userId: number; trashed: boolean; shareToken: string | null }, viewer: Viewer): Access | null {
  if (viewer.user && viewer.user.id === subject.userId) return 'owner';
  if (!subject.trashed && viewer.shareToken && viewer.shareToken === subject.shareToken) return 'reader';
  return null;
}
