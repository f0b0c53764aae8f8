/** The tags of the files the engine writes: the contracts' list, which the runner registers them under. */
export { RESULT_TAGS as RESULT_TAG } from '@kinetrace/contracts';
