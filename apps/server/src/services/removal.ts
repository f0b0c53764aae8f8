import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TasksRepository } from '../repositories/tasks-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { UsersRepository } from '../repositories/users-repository.ts';
import type { StagedUploads } from './staged-uploads.ts';
import { downloadFilesPrefix, sessionFilesPrefix, trialFilesPrefix, userFilesPrefix } from './storage-keys.ts';

/**
 * Permanent removal, rows and files together: used by the owner's "delete permanently", the
 * recycle bin, the retention job and account deletion. Rows go first, so a failure half-way leaves
 * orphan files (harmless) rather than rows pointing at missing files; uploads still arriving for what
 * was removed leave the disk with it.
 */
export function createRemoval(deps: {
  users: UsersRepository;
  sessions: SessionsRepository;
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  tasks: TasksRepository;
  files: FileStore;
  stagedUploads: StagedUploads;
}) {
  const { users, sessions, trials, subjects, tasks, files, stagedUploads } = deps;
  return {
    async trial(sessionId: string, trialId: string): Promise<void> {
      await trials.remove(trialId);
      await files.removeTree(trialFilesPrefix(sessionId, trialId));
      await stagedUploads.removeAbandoned();
    },
    async session(sessionId: string): Promise<void> {
      await sessions.remove(sessionId);
      await files.removeTree(sessionFilesPrefix(sessionId));
      await stagedUploads.removeAbandoned();
    },
    /** The subject's sessions stay, without a subject. */
    async subject(subjectId: number): Promise<void> {
      await subjects.remove(subjectId);
    },
    /**
     * A user with every row (by cascade) and every file: their sessions', their own, the archives
     * prepared of their sessions and subjects (theirs, visitors' and share-link holders'), and the
     * uploads on their way to their trials.
     */
    async user(userId: number): Promise<void> {
      const sessionIds = await sessions.idsOfUser(userId);
      const taskIds = await tasks.idsHoldingDataOf(userId, sessionIds, await subjects.idsOfUser(userId));
      await users.remove(userId);
      for (const id of taskIds) await tasks.remove(id);
      for (const id of sessionIds) await files.removeTree(sessionFilesPrefix(id));
      for (const id of taskIds) await files.removeTree(downloadFilesPrefix(id));
      await files.removeTree(userFilesPrefix(userId));
      await stagedUploads.removeAbandoned();
    },
  };
}

export type Removal = ReturnType<typeof createRemoval>;
