/** Every file of a user lives under this prefix, so deleting the account removes them all. */
export const userFilesPrefix = (userId: number) => `users/${userId}`;
/** Where a session's files live in the file store; removing the session's tree removes them all. */
export const sessionFilesPrefix = (sessionId: string) => `sessions/${sessionId}`;
export const trialFilesPrefix = (sessionId: string, trialId: string) =>
  `${sessionFilesPrefix(sessionId)}/trials/${trialId}`;
export const downloadFilesPrefix = (taskId: string) => `downloads/${taskId}`;

/** What a prepared archive holds: a session or a subject (the async download job's target). */
export type ArchiveTarget = { kind: 'session'; sessionId: string } | { kind: 'subject'; subjectId: number };

/**
 * A prepared archive's key names what it was made of, so that serving it can check them against the
 * asker's access then: `downloads/<task>/<target>/<share>/<digest>/<file>`, the session or subject, the
 * share token it was asked with (as media URLs carry it, `n` without one) and the archive's digest.
 */
export interface DownloadKey {
  taskId: string;
  target: ArchiveTarget;
  shareCode: string;
  digest: string;
  fileName: string;
}

const DOWNLOAD_KEY =
  /^downloads\/([0-9a-f-]{36})\/(?:session-([0-9a-f-]{36})|subject-(\d{1,10}))\/(n|s[0-9a-f]{22})\/([\w-]{22})\/([^/]+)$/;

export function downloadFileKey({ taskId, target, shareCode, digest, fileName }: DownloadKey): string {
  const named = target.kind === 'session' ? `session-${target.sessionId}` : `subject-${target.subjectId}`;
  return `${downloadFilesPrefix(taskId)}/${named}/${shareCode}/${digest}/${fileName}`;
}

export function parseDownloadKey(key: string): DownloadKey | null {
  const match = DOWNLOAD_KEY.exec(key);
  if (!match) return null;
  const [, taskId, sessionId, subjectId, shareCode, digest, fileName] = match;
  const target: ArchiveTarget = sessionId
    ? { kind: 'session', sessionId }
    : { kind: 'subject', subjectId: Number(subjectId) };
  return { taskId, target, shareCode, digest, fileName };
}
