import {
  BUSY_TRIAL_STATUSES,
  messages,
  RESERVED_TRIAL_NAMES,
  type Trial,
  type TrialStatus,
} from '@kinetrace/contracts';
import { invalidFields, notFound } from '../http/http-errors.ts';
import type { TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import { OWNER_VIEW, type SessionView, type Viewer } from './access.ts';
import type { AuthContext } from './auth-service.ts';
import type { MediaUrlSigner } from './media-urls.ts';
import { toTrial } from './presenters.ts';
import type { Removal } from './removal.ts';
import type { SessionService } from './session-service.ts';

export interface TrialServiceDeps {
  trials: TrialsRepository;
  sessionService: SessionService;
  removal: Removal;
  media: MediaUrlSigner;
  now: () => Date;
}

export function createTrialService({ trials, sessionService, removal, media, now }: TrialServiceDeps) {
  /** The trial, if the viewer may read its session (trashed trials only for the owner). */
  async function readable(
    viewer: Viewer,
    id: string,
  ): Promise<{ trial: TrialRow; isOwner: boolean; view: SessionView }> {
    const trial = await trials.findById(id);
    if (trial) {
      const found = await sessionService.access(viewer, trial.sessionId).catch(() => null);
      if (found && (found.access === 'owner' || !trial.trashed))
        return { trial, isOwner: found.access === 'owner', view: found.view };
    }
    throw notFound(messages.trialNotFound);
  }

  async function own(context: AuthContext, id: string): Promise<TrialRow> {
    const { trial, isOwner } = await readable({ user: context.user }, id);
    if (!isOwner) throw notFound(messages.trialNotFound);
    return trial;
  }

  async function present(trial: TrialRow, view: SessionView = OWNER_VIEW): Promise<Trial> {
    const [withFiles] = await trials.withFiles([trial]);
    return toTrial(withFiles, media, view, await sessionService.openCapOf(trial.sessionId));
  }

  function assertNotBusy(trial: TrialRow): void {
    if (BUSY_TRIAL_STATUSES.includes(trial.status as TrialStatus))
      throw invalidFields({ trialNewName: [messages.trialBusy] });
  }

  return {
    async get(viewer: Viewer, id: string): Promise<Trial> {
      const { trial, view } = await readable(viewer, id);
      return present(trial, view);
    },

    async rename(context: AuthContext, id: string, name: string): Promise<Trial> {
      const trial = await own(context, id);
      if (trial.name === 'neutral') throw invalidFields({ trialNewName: [messages.neutralCannotBeRenamed] });
      assertNotBusy(trial);
      if (name === trial.name) return present(trial);
      if ((RESERVED_TRIAL_NAMES as readonly string[]).includes(name.toLowerCase())) {
        throw invalidFields({ trialNewName: [messages.trialNameReserved] });
      }
      if (await trials.nameTaken(trial.sessionId, name, trial.id))
        throw invalidFields({ trialNewName: [messages.uniqueTrialName] });
      return present(await trials.update(id, { name }));
    },

    async modifyTags(context: AuthContext, id: string, tags: string[]): Promise<Trial> {
      const trial = await own(context, id);
      if (BUSY_TRIAL_STATUSES.includes(trial.status as TrialStatus))
        throw invalidFields({ trialNewTags: [messages.trialBusy] });
      return present(await trials.update(id, { tags: [...new Set(tags)] }));
    },

    async trash(context: AuthContext, id: string): Promise<Trial> {
      await own(context, id);
      return present(await trials.update(id, { trashed: true, trashedAt: now() }));
    },

    async restore(context: AuthContext, id: string): Promise<Trial> {
      await own(context, id);
      return present(await trials.update(id, { trashed: false, trashedAt: null }));
    },

    async permanentRemove(context: AuthContext, id: string): Promise<void> {
      const trial = await own(context, id);
      await removal.trial(trial.sessionId, trial.id);
    },

    async tags(viewer: Viewer, id: string): Promise<{ tag: string }[]> {
      return (await readable(viewer, id)).trial.tags.map((tag) => ({ tag }));
    },
  };
}

export type TrialService = ReturnType<typeof createTrialService>;
