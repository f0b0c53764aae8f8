import { TRASH_RETENTION_DAYS } from '@kinetrace/contracts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TasksRepository } from '../repositories/tasks-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { Removal } from './removal.ts';
import { downloadFilesPrefix } from './storage-keys.ts';

const DAY_MS = 86_400_000;
/** Prepared archives are kept one day: enough to download, not enough to pile up. */
const ARCHIVE_RETENTION_MS = DAY_MS;

export interface PurgeReport {
  trials: number;
  sessions: number;
  subjects: number;
  archives: number;
}

/** The scheduled clean-up: what has been trashed for more than 30 days goes, with its files. */
export function createRetentionService(deps: {
  trials: TrialsRepository;
  sessions: SessionsRepository;
  subjects: SubjectsRepository;
  tasks: TasksRepository;
  files: FileStore;
  removal: Removal;
  now: () => Date;
}) {
  const { trials, sessions, subjects, tasks, files, removal, now } = deps;
  return {
    async purge(): Promise<PurgeReport> {
      const cutoff = new Date(now().getTime() - TRASH_RETENTION_DAYS * DAY_MS);
      const oldTrials = await trials.trashedBefore(cutoff);
      for (const trial of oldTrials) await removal.trial(trial.sessionId, trial.id);
      const oldSessions = await sessions.trashedBefore(cutoff);
      for (const session of oldSessions) await removal.session(session.id);
      const oldSubjects = await subjects.trashedBefore(cutoff);
      for (const subject of oldSubjects) await removal.subject(subject.id);
      const oldArchives = await tasks.finishedBefore(new Date(now().getTime() - ARCHIVE_RETENTION_MS));
      for (const task of oldArchives) {
        await tasks.remove(task.id);
        await files.removeTree(downloadFilesPrefix(task.id));
      }
      return {
        trials: oldTrials.length,
        sessions: oldSessions.length,
        subjects: oldSubjects.length,
        archives: oldArchives.length,
      };
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
