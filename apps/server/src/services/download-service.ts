import { PassThrough } from 'node:stream';
import { messages } from '@kinetrace/contracts';
import { badRequest, HttpError, notFound, tooManyRequests } from '../http/http-errors.ts';
import type { JobPayload } from '../jobs/job-kinds.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { TasksRepository } from '../repositories/tasks-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { isOutOfSpace, OUT_OF_SPACE_STATUS } from '../storage/out-of-space.ts';
import { grantCode, liveSubjectLink, subjectAccess, subjectSessionView, type Viewer } from './access.ts';
import type { Archive, ArchiveService } from './archive-service.ts';
import type { MediaUrlSigner } from './media-urls.ts';
import type { SessionService } from './session-service.ts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { RateLimiter, RateRule } from './rate-limiter.ts';
import { downloadFileKey, downloadFilesPrefix, parseDownloadKey, type ArchiveTarget } from './storage-keys.ts';

export type TaskState = { ready: true; url: string } | { ready: false; status: string; progress: number };

/**
 * Each prepared archive is a full copy of what it holds, kept on the server's disk until the recycle
 * job drops it: a signed-in user, or a client address for visitors, prepares at most this many an hour,
 * so that nobody can fill the disk by asking for the same public session again and again.
 */
export const archiveRateRules = {
  preparationsPerAsker: { limit: 30, windowMs: 60 * 60_000 },
} satisfies Record<string, RateRule>;

const NO_SHARE_TOKEN = 'n';
/** What a failed task records as its reason when it was not a rule's answer. */
const SERVER_FAILURE = 'something went wrong on the server';
const OUT_OF_SPACE = 'the server is out of disk space';
const shareCodeOf = (shareToken: string | undefined) =>
  shareToken ? grantCode({ kind: 'share', token: shareToken }) : NO_SHARE_TOKEN;

/** Async archive downloads: a task row the client polls, and the job that fills it. */
export function createDownloadService(deps: {
  tasks: TasksRepository;
  files: FileStore;
  queue: JobQueue;
  archives: ArchiveService;
  sessionService: SessionService;
  sessions: SessionsRepository;
  subjects: SubjectsRepository;
  media: MediaUrlSigner;
  rateLimiter: RateLimiter;
  now: () => Date;
}) {
  const { tasks, files, queue, archives, sessionService, sessions, subjects, media, rateLimiter, now } = deps;

  async function throttlePreparation(viewer: Viewer, clientAddress: string): Promise<void> {
    const asker = viewer.user ? `user:${viewer.user.id}` : `address:${clientAddress}`;
    const waitS = await rateLimiter.hit(`archive:${asker}`, archiveRateRules.preparationsPerAsker);
    if (waitS > 0) throw tooManyRequests(messages.tooManyAttempts(waitS), waitS);
  }

  async function readableSubject(viewer: Viewer, subjectId: number) {
    const subject = await subjects.findById(subjectId);
    if (!subject || !subjectAccess(subject, viewer)) throw notFound(messages.subjectNotFound);
    return subject;
  }

  /** A session's archive as this viewer may see it (access.ts). */
  async function sessionArchive(viewer: Viewer, sessionId: string) {
    const { session, view } = await sessionService.access(viewer, sessionId);
    return archives.sessionArchive(session, view.disclosure);
  }

  /** A subject's archive: the sessions `subjectSessionView` gives this viewer, the same for the sync and the async download. */
  async function subjectArchive(viewer: Viewer, subjectId: number) {
    const subject = await readableSubject(viewer, subjectId);
    return archives.subjectArchive(subject, (session) => subjectSessionView(session, viewer, subject));
  }

  /** The async download's job builds the archive for the viewer who asked, checked again then. */
  const shareTokenOf = (viewer: Viewer) => (viewer.shareToken ? { shareToken: viewer.shareToken } : {});

  const archiveOf = (viewer: Viewer, target: ArchiveTarget) =>
    target.kind === 'session' ? sessionArchive(viewer, target.sessionId) : subjectArchive(viewer, target.subjectId);

  /**
   * Who asked for a prepared archive, as of now: the task's user, and the share token they came with
   * found again by its digest among the target's current ones; null when it no longer is one of them.
   */
  async function askerNow(userId: number | null, target: ArchiveTarget, shareCode: string): Promise<Viewer | null> {
    const user = userId === null ? null : { id: userId };
    if (shareCode === NO_SHARE_TOKEN) return { user };
    const candidates: (string | null)[] = [];
    if (target.kind === 'session') {
      const session = await sessions.findById(target.sessionId);
      const subject = !session || session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
      candidates.push(session?.shareToken ?? null, liveSubjectLink(subject));
    } else candidates.push(liveSubjectLink(await subjects.findById(target.subjectId)));
    const shareToken = candidates.find((token): token is string => !!token && shareCodeOf(token) === shareCode);
    return shareToken ? { user, shareToken } : null;
  }

  return {
    sessionArchive,
    subjectArchive,

    async startSessionArchive(viewer: Viewer, sessionId: string, clientAddress: string): Promise<string> {
      await sessionService.access(viewer, sessionId);
      await throttlePreparation(viewer, clientAddress);
      const task = await tasks.insert({ userId: viewer.user?.id ?? null, kind: 'session-archive' });
      await queue.send('archive-download', {
        taskId: task.id,
        target: { kind: 'session', sessionId },
        ...shareTokenOf(viewer),
      });
      return task.id;
    },

    async startSubjectArchive(viewer: Viewer, subjectId: number, clientAddress: string): Promise<string> {
      await readableSubject(viewer, subjectId);
      await throttlePreparation(viewer, clientAddress);
      const task = await tasks.insert({ userId: viewer.user?.id ?? null, kind: 'subject-archive' });
      await queue.send('archive-download', {
        taskId: task.id,
        target: { kind: 'subject', subjectId },
        ...shareTokenOf(viewer),
      });
      return task.id;
    },

    /** The job: builds the archive into the file store, reporting progress on the task. */
    async runArchiveJob({ taskId, target, shareToken }: JobPayload<'archive-download'>): Promise<void> {
      const task = await tasks.findById(taskId);
      if (!task) return;
      try {
        await tasks.update(taskId, { status: 'running' });
        // The same rules as the sync download, for the viewer who asked, as their access stands now.
        const viewer: Viewer = { user: task.userId === null ? null : { id: task.userId }, shareToken };
        const archive: Archive = await archiveOf(viewer, target);
        const key = downloadFileKey({
          taskId,
          target,
          shareCode: shareCodeOf(shareToken),
          digest: archive.digest,
          fileName: archive.fileName,
        });
        const pipe = new PassThrough();
        let lastReport = 0;
        // Progress writes run one after another and end before the final state is written, so a late one
        // cannot overwrite it; progress is advisory, and a failing database surfaces in the final write.
        let progressSaved = Promise.resolve();
        await Promise.all([
          files.put(key, pipe),
          archive.write(pipe, (done, total) => {
            const time = now().getTime();
            if (time - lastReport > 1000) {
              lastReport = time;
              progressSaved = progressSaved
                .then(() => tasks.update(taskId, { progress: total > 0 ? done / total : 1 }))
                .catch(() => undefined);
            }
          }),
        ]);
        await progressSaved;
        await tasks.update(taskId, { status: 'done', progress: 1, resultKey: key, finishedAt: now() });
      } catch (error) {
        // Half an archive is of no use, and on a full disk it is the space the server needs back.
        await files.removeTree(downloadFilesPrefix(taskId));
        // The task's error is read by the viewer: a rule's answer (the session is gone, no longer shared) is theirs,
        // as is a full disk; anything else (file paths, driver text) stays in the job's log.
        const reason = error instanceof HttpError ? error.message : isOutOfSpace(error) ? OUT_OF_SPACE : SERVER_FAILURE;
        await tasks.update(taskId, { status: 'failed', error: reason, finishedAt: now() });
        throw error;
      }
    },

    async state(viewer: Viewer, taskId: string): Promise<TaskState> {
      const task = await tasks.findById(taskId);
      if (!task || (task.userId !== null && task.userId !== viewer.user?.id)) throw notFound(messages.taskNotFound);
      if (task.status === 'failed' && task.error === OUT_OF_SPACE)
        throw new HttpError(OUT_OF_SPACE_STATUS, { detail: messages.serverOutOfSpace });
      if (task.status === 'failed')
        throw badRequest(
          `The archive could not be prepared: ${(task.error ?? SERVER_FAILURE).replace(/\.$/, '')}. Please try again.`,
        );
      if (task.status === 'done' && task.resultKey) return { ready: true, url: media.url(task.resultKey) };
      return { ready: false, status: task.status, progress: task.progress };
    },

    /**
     * Whether a prepared archive may still be served, as signed media URLs are checked at every request:
     * its task is there (gone with its asker's account), and the archive the asker may download now, with
     * the share token they came with still the session's or subject's, is the one prepared. A session
     * made private or deleted, a trial trashed, a share link replaced or the data sharing narrowed all
     * change that, and stop the link.
     */
    async stillServes(key: string): Promise<boolean> {
      const parts = parseDownloadKey(key);
      if (!parts) return false;
      const task = await tasks.findById(parts.taskId);
      if (!task || task.status !== 'done' || task.resultKey !== key) return false;
      const { target, shareCode, digest } = parts;
      const viewer = await askerNow(task.userId, target, shareCode);
      if (!viewer) return false;
      try {
        return (await archiveOf(viewer, target)).digest === digest;
      } catch (error) {
        if (error instanceof HttpError) return false; // no access now (404 from the access rules)
        throw error;
      }
    },
  };
}

export type DownloadService = ReturnType<typeof createDownloadService>;
