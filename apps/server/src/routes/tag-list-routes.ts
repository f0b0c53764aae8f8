import type { FastifyInstance } from 'fastify';
import { SUBJECT_TAGS, tagListPaths, TRIAL_TAGS } from '@kinetrace/contracts';

/** The static tag lists, at the paths the spec names (outside /api). */
export function registerTagListRoutes(app: FastifyInstance): void {
  app.get(tagListPaths.subjects, { schema: { tags: ['Tags'] } }, async () => SUBJECT_TAGS);
  app.get(tagListPaths.trials, { schema: { tags: ['Tags'] } }, async () => TRIAL_TAGS);
}
