/**
 * An analysis could not be made from this trial. The message is for the person who invoked it:
 * what was missing and what to record or choose instead (shown in red in the analysis dialog).
 */
export class AnalysisError extends Error {
  override name = 'AnalysisError';
}
