import { PassThrough } from 'node:stream';
import { messages } from '@kinetrace/contracts';
import { badRequest, notFound } from '../http/http-errors.ts';
import type { JobPayload } from '../jobs/job-kinds.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { TasksRepository } from '../repositories/tasks-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { sessionAccess, subjectAccess, type Viewer } from './access.ts';
import type { Archive, ArchiveService } from './archive-service.ts';
import type { MediaUrlSigner } from './media-urls.ts';
import type { SessionService } from './session-service.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import { downloadFilesPrefix } from './storage-keys.ts';

export type TaskState = { ready: true; url: string } | { ready: false; status: string; progress: number };

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
  now: () => Date;
}) {
  const { tasks, files, queue, archives, sessionService, sessions, subjects, media, now } = deps;

  async function readableSubject(viewer: Viewer, subjectId: number) {
    const subject = await subjects.findById(subjectId);
    if (!subject || !subjectAccess(subject, viewer)) throw notFound(messages.subjectNotFound);
    return subject;
  }

  return {
    async sessionArchive(viewer: Viewer, sessionId: string) {
      const { session } = await sessionService.access(viewer, sessionId);
      return archives.sessionArchive(session);
    },

    async subjectArchive(viewer: Viewer, subjectId: number) {
      const subject = await readableSubject(viewer, subjectId);
      return archives.subjectArchive(subject.id, (session) => sessionAccess(session, viewer, subject.shareToken) !== null);
    },

    async startSessionArchive(viewer: Viewer, sessionId: string): Promise<string> {
      await sessionService.access(viewer, sessionId);
      const task = await tasks.insert({ userId: viewer.user?.id ?? null, kind: 'session-archive' });
      await queue.send('archive-download', { taskId: task.id, target: { kind: 'session', sessionId } });
      return task.id;
    },

    async startSubjectArchive(viewer: Viewer, subjectId: number): Promise<string> {
      await readableSubject(viewer, subjectId);
      const task = await tasks.insert({ userId: viewer.user?.id ?? null, kind: 'subject-archive' });
      await queue.send('archive-download', { taskId: task.id, target: { kind: 'subject', subjectId } });
      return task.id;
    },

    /** The job: builds the archive into the file store, reporting progress on the task. */
    async runArchiveJob({ taskId, target }: JobPayload<'archive-download'>): Promise<void> {
      const task = await tasks.findById(taskId);
      if (!task) return;
      try {
        await tasks.update(taskId, { status: 'running' });
        // Permission was checked when the task was accepted; the job builds what was asked then.
        let archive: Archive;
        if (target.kind === 'session') {
          const session = await sessions.findById(target.sessionId);
          if (!session) throw new Error(messages.sessionNotFound);
          archive = await archives.sessionArchive(session);
        } else {
          archive = await archives.subjectArchive(target.subjectId, (session) => task.userId === null ? session.public : session.userId === task.userId || session.public);
        }
        const key = `${downloadFilesPrefix(taskId)}/${archive.fileName}`;
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
        await tasks.update(taskId, { status: 'failed', error: error instanceof Error ? error.message : String(error), finishedAt: now() });
        throw error;
      }
    },

    async state(viewer: Viewer, taskId: string): Promise<TaskState> {
      const task = await tasks.findById(taskId);
      if (!task || (task.userId !== null && task.userId !== viewer.user?.id)) throw notFound(messages.taskNotFound);
      if (task.status === 'failed') throw badRequest(`The archive could not be prepared: ${task.error ?? 'unknown error'}`);
      if (task.status === 'done' && task.resultKey) return { ready: true, url: media.url(task.resultKey) };
      return { ready: false, status: task.status, progress: task.progress };
    },
  };
}

export type DownloadService = ReturnType<typeof createDownloadService>;
