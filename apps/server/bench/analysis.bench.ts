/**
 * What an analysis costs and what it does to the server's event loop: OpenCap's walking trial
 * (walk.mot, 3.7 s at 60 Hz, with its scaled model) analysed on the main thread and in a worker
 * thread (apps/server/src/analyses/analysis-thread.ts, kept between analyses as the server does), printing each run's
 * wall time and the longest stall of the main thread's event loop meanwhile.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { analyseTrial, loadAnalysisInput } from '@kinetrace/mocap/analyses/index';
import { referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { AnalysisThread, type AnalysisThreadRequest } from '../src/analyses/analysis-thread.ts';

const SESSION =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8';
const request: AnalysisThreadRequest = {
  kind: 'gait',
  files: {
    modelXml: readFileSync(
      referencePath(`${SESSION}/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`),
      'utf8',
    ),
    motionText: readFileSync(referencePath(`${SESSION}/OpenSimData/Kinematics/walk.mot`), 'utf8'),
    heightM: 1.86,
  },
};

/** Runs `run` while a 5 ms timer of the main thread notes the longest gap between its ticks (a stalled event loop). */
async function measure(label: string, run: () => Promise<unknown>): Promise<void> {
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const start = performance.now();
  await run();
  const wallMs = performance.now() - start;
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  console.log(
    `${label}: ${wallMs.toFixed(0)} ms, longest event-loop stall ${longestGapMs.toFixed(0)} ms (load ${loadavg()[0].toFixed(1)})`,
  );
}

const thread = new AnalysisThread(60_000);
for (let round = 1; round <= 3; round++) {
  await measure(`round ${round}, main thread  `, async () => analyseTrial('gait', loadAnalysisInput(request.files)));
  // Round 1 starts the thread and loads the engine in it; later rounds reuse it, as the server does.
  await measure(`round ${round}, worker thread`, () => thread.run(request, 120_000));
}
await thread.close();
