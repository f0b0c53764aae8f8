import { parentPort, workerData } from 'node:worker_threads';
import { analysisResultSchema } from '@kinetrace/contracts';
import { AnalysisError, analyseTrial, loadAnalysisInput } from '@kinetrace/mocap/analyses/index';
import type { AnalysisThreadReply, AnalysisThreadRequest } from './analysis-thread.ts';

/**
 * A worker thread that runs one analysis (parsing the model and motion, forward kinematics over every
 * frame, the analysis itself) and answers with its result, the engine's message for the user, or the
 * internal error's text for the log: the server's event loop keeps serving requests meanwhile.
 */
const port = parentPort;
if (!port) throw new Error('analysis-worker.ts must run as a worker thread');
const { kind, files } = workerData as AnalysisThreadRequest;

let reply: AnalysisThreadReply;
try {
  reply = { status: 'done', result: analysisResultSchema.parse(analyseTrial(kind, loadAnalysisInput(files))) };
} catch (error) {
  reply =
    error instanceof AnalysisError
      ? { status: 'user-error', message: error.message }
      : { status: 'internal-error', detail: error instanceof Error ? (error.stack ?? error.message) : String(error) };
}
port.postMessage(reply);
