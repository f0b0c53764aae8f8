import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { RESULT_TAGS } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import type { PoseEstimate, PoseRequest } from '@kinetrace/mocap/pose/pose-model';
import type { PoseInference } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { RgbImage } from '@kinetrace/mocap/pose/region-sampler';
import { calibrateSession } from '@kinetrace/mocap/session/calibrate-session';
import { processMovementResultsFirst } from '@kinetrace/mocap/session/process-movement';
import { processNeutral } from '@kinetrace/mocap/session/process-neutral';
import { lowerThreadPriority } from '@kinetrace/mocap/runtime/thread-priority';
import type { CameraModel, MovementResultsFirst, RunOptions } from '@kinetrace/mocap/session/types';
import type { EngineFailure, EngineThreadMessage, EngineThreadRequest } from './engine-thread.ts';
import type { ResultFile, TrialInputs } from './trial-io.ts';
import { detectOnArrival } from './detect-on-arrival.ts';
import { userMessageOf } from './user-errors.ts';

/**
 * A trial's engine thread (engine-thread.ts): for each run it is sent, the engine's function for the
 * trial's kind, its pose frames sent to the parent's pool, its progress to the parent; answers with
 * the result files, or the failure with the message for the user when it is theirs (decided here,
 * where the engine's error classes are). A movement's synchronised videos follow its results.
 */
const port = parentPort;
if (!port) throw new Error('engine-worker.ts must run as a worker thread');
// A trial runs in the background of a server's API (or a worker's heartbeats), its decoders with it.
lowerThreadPriority();
const post = (message: EngineThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** Frames waiting for the parent's pool, by id. */
const waiting = new Map<number, { resolve: (estimate: PoseEstimate) => void; reject: (error: Error) => void }>();
let nextId = 0;

/** The parent's pose pool, reached by messages: each frame's pixels are handed over, not copied. */
function poolOfParent(size: number): PoseInference {
  return {
    size,
    infer(image: RgbImage, request: PoseRequest): Promise<PoseEstimate> {
      const ownsBuffer = image.data.byteOffset === 0 && image.data.byteLength === image.data.buffer.byteLength;
      const data = ownsBuffer ? image.data : image.data.slice();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        post({ kind: 'infer', id, width: image.width, height: image.height, data, request }, [
          data.buffer as ArrayBuffer,
        ]);
      });
    },
  };
}

/** A failure as the parent reads it, with the user's message when it is theirs. */
function failureOf(error: unknown, inputs: TrialInputs): EngineFailure {
  const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
  return { name, message, stack, userMessage: userMessageOf(error, inputs.videos) };
}

/** The synchronised videos, tried once more when the first try failed as ours (a decoder or encoder that died). */
async function syncVideosFollowUp(inputs: TrialInputs, writeSyncVideos: WriteSyncVideos): Promise<void> {
  const onProgress = (done: number, total: number) =>
    post({ kind: 'follow-up-progress', fraction: total > 0 ? done / total : 1 });
  for (let tries = 1; ; tries++) {
    try {
      const files = (await writeSyncVideos(onProgress)) as ResultFile[];
      return post({ kind: 'follow-up-done', files });
    } catch (error) {
      const failure = failureOf(error, inputs);
      if (failure.userMessage !== undefined || tries >= 2) return post({ kind: 'follow-up-failed', ...failure });
    }
  }
}

async function run({ inputs, outDir, poolSize }: Extract<EngineThreadRequest, { kind: 'run' }>): Promise<void> {
  let results: Awaited<ReturnType<typeof dispatch>>;
  try {
    results = await dispatch(inputs, outDir, {
      onProgress: (stage, fraction) => post({ kind: 'progress', stage, fraction }),
      ...(poolSize !== undefined && { pool: poolOfParent(poolSize) }),
    });
  } catch (error) {
    return post({ kind: 'failed', ...failureOf(error, inputs) });
  }
  if (!results.writeSyncVideos) return post({ kind: 'done', files: results.files });
  // The trial is done with these; its synchronised videos follow (issue 24).
  post({ kind: 'done', files: results.files, followUp: 'sync_videos' });
  await syncVideosFollowUp(inputs, results.writeSyncVideos);
}

/** One camera detected as its video arrived (detect-on-arrival.ts), its frames to the parent's pool. */
async function detect({
  video,
  trial,
  outPath,
  poolSize,
}: Extract<EngineThreadRequest, { kind: 'detect' }>): Promise<void> {
  try {
    post({ kind: 'detected', detection: await detectOnArrival(video, trial, poolOfParent(poolSize), outPath) });
  } catch (error) {
    const { name, message, stack } = error instanceof Error ? error : new Error(String(error));
    post({ kind: 'failed', name, message, stack });
  }
}

port.on('message', (request: EngineThreadRequest) => {
  if (request.kind === 'run') return void run(request);
  if (request.kind === 'detect') return void detect(request);
  const pending = waiting.get(request.id);
  waiting.delete(request.id);
  if (request.kind === 'estimate') pending?.resolve(request.estimate);
  else pending?.reject(new Error(request.message));
});

type WriteSyncVideos = MovementResultsFirst['writeSyncVideos'];

/** The engine's function for the trial's kind: its result files, and for a movement the step writing its synchronised videos. */
async function dispatch(
  inputs: TrialInputs,
  outDir: string,
  runOptions: RunOptions,
): Promise<{ files: ResultFile[]; writeSyncVideos?: WriteSyncVideos }> {
  switch (inputs.kind) {
    case 'calibration': {
      const outcome = await calibrateSession({ videos: inputs.videos, board: inputs.board, outDir }, runOptions);
      const files: ResultFile[] = [];
      for (const camera of outcome.cameras) {
        const path = await writeCameraFile(
          outDir,
          camera.cameraName,
          camera.solutions.map((solution) => solution.camera),
          {
            boardRmsPx: camera.solutions.map((solution) => solution.boardRmsPx),
            intrinsicsEstimated: camera.intrinsicsEstimated,
          },
        );
        files.push({ tag: RESULT_TAGS.cameraParameters, path, cameraName: camera.cameraName });
        files.push({ tag: RESULT_TAGS.calibrationImage, path: camera.imagePath, cameraName: camera.cameraName });
      }
      return { files };
    }
    case 'neutral': {
      const outcome = await processNeutral({ ...inputs, outDir }, runOptions);
      const chosen = await Promise.all(
        outcome.cameras.map(async (camera, index) => {
          const cameraName = inputs.videos[index].cameraName;
          const boardRmsPx = outcome.calibrationErrorsPx?.[index];
          const path = await writeCameraFile(outDir, cameraName, [camera], {
            chosenForSession: true,
            ...(typeof boardRmsPx === 'number' && { boardRmsPx: [boardRmsPx] }),
          });
          return { tag: RESULT_TAGS.cameraParameters, path, cameraName } satisfies ResultFile;
        }),
      );
      return { files: [...chosen, ...(outcome.files as ResultFile[])] };
    }
    case 'movement': {
      const outcome = await processMovementResultsFirst({ ...inputs, outDir }, runOptions);
      return { files: outcome.files as ResultFile[], writeSyncVideos: outcome.writeSyncVideos };
    }
  }
}

/** One camera's candidate models (best first) as a Kinetrace camera file named after the camera. */
async function writeCameraFile(
  outDir: string,
  cameraName: string,
  models: CameraModel[],
  calibration: Record<string, unknown>,
): Promise<string> {
  const folder = join(outDir, 'camera-parameters');
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${cameraName.replace(/[^A-Za-z0-9_-]+/g, '_')}.json`);
  await writeFile(path, writeKinetraceCameras(models, calibration));
  return path;
}
