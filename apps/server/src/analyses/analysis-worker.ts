import { parentPort } from 'node:worker_threads';
import { analysisResultSchema } from '@kinetrace/contracts';
import { AnalysisError, analyseTrial, loadAnalysisInput } from '@kinetrace/mocap/analyses/index';
import type { AnalysisThreadReply, AnalysisThreadRequest } from './analysis-thread.ts';

/**
 * The analysis worker thread: for each request, parses the model and motion, runs forward
 * kinematics over every frame and the analysis, and answers with the result, the engine's message
 * for the user, or the internal error's text for the log.
 */
const port = parentPort;
if (!port) throw new Error('analysis-worker.ts must run as a worker thread');

function analyse({ kind, files }: AnalysisThreadRequest): AnalysisThreadReply {
  try {
    return { status: 'done', result: analysisResultSchema.parse(analyseTrial(kind, loadAnalysisInput(files))) };
  } catch (error) {
    if (error instanceof AnalysisError) return { status: 'user-error', message: error.message };
    return {
      status: 'internal-error',
      detail: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}

port.on('message', (request: AnalysisThreadRequest) => port.postMessage(analyse(request)));
