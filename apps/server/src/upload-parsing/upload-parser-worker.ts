import { parentPort } from 'node:worker_threads';
import type { UploadParserReply, UploadParserRequest } from './upload-parser-thread.ts';
import { uploadParsers } from './upload-parsers.ts';

/**
 * An upload parser thread: runs the named parser on each request and answers with its value, or
 * with the name and message of what it threw. Says it is ready once the engine's readers are loaded,
 * so that loading does not count against a parse's time limit.
 */
const port = parentPort;
if (!port) throw new Error('upload-parser-worker.ts must run as a worker thread');

async function parse({ parser, input }: UploadParserRequest): Promise<UploadParserReply> {
  try {
    const run = uploadParsers[parser] as (input: unknown) => Promise<unknown>;
    return { status: 'done', value: await run(input) };
  } catch (error) {
    return {
      status: 'refused',
      errorName: error instanceof Error ? error.name : 'Error',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

port.on('message', (request: UploadParserRequest) => {
  void parse(request).then((reply) => port.postMessage(reply));
});
port.postMessage({ status: 'ready' } satisfies UploadParserReply);
