/** The stages of processing a trial, in order, as progress reports name them. */
export const PIPELINE_STAGES = ['pose', 'sync', 'triangulate', 'filter', 'outputs'] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/** Progress of one stage: `done` out of `total` units (frames, candidates, files). */
export type StageProgress = (stage: PipelineStage, done: number, total: number) => void;
