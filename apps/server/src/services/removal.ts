import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TasksRepository } from '../repositories/tasks-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { UsersRepository } from '../repositories/users-repository.ts';
import { downloadFilesPrefix, sessionFilesPrefix, trialFilesPrefix, userFilesPrefix } from './storage-keys.ts';

/**
 * Permanent removal, rows and files together: used by the owner's "delete permanently", the
 * recycle bin, the retention job and account deletion. Rows go first, so a failure half-way leaves
 * orphan files (harmless) rather than rows pointing at missing files.
 */
export function createRemoval(deps: {
  users: UsersRepository;
  sessions: SessionsRepository;
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  tasks: TasksRepository;
  files: FileStore;
}) {
  const { users, sessions, trials, subjects, tasks, files } = deps;
  return {
    async trial(sessionId: string, trialId: string): Promise<void> {
      await trials.remove(trialId);
      await files.removeTree(trialFilesPrefix(sessionId, trialId));
    },
    async session(sessionId: string): Promise<void> {
      await sessions.remove(sessionId);
      await files.removeTree(sessionFilesPrefix(sessionId));
    },
    /** The subject's sessions stay, without a subject. */
    async subject(subjectId: number): Promise<void> {
      await subjects.remove(subjectId);
    },
    /**
     * A user with every row (by cascade) and every file: their sessions', their own, and the archives
     * prepared of their sessions (theirs and visitors').
     */
    async user(userId: number): Promise<void> {
      const sessionIds = await sessions.idsOfUser(userId);
      const taskIds = await tasks.idsHoldingDataOf(userId, sessionIds);
      await users.remove(userId);
      for (const id of taskIds) await tasks.remove(id);
      for (const id of sessionIds) await files.removeTree(sessionFilesPrefix(id));
      for (const id of taskIds) await files.removeTree(downloadFilesPrefix(id));
      await files.removeTree(userFilesPrefix(userId));
    },
  };
}

export type Removal = ReturnType<typeof createRemoval>;
