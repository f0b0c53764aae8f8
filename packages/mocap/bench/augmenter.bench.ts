/**
 * Marker augmenter speed: OpenCap's LSTM (body + arm networks) and the linear reference model on a
 * real 581-frame keypoint trial (squats, 60 Hz), frames per second on one core.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadMarkerAugmenter } from '../src/augmenter/load-augmenter.ts';
import { augmentMarkers } from '../src/augmenter/marker-augmenter.ts';
import { readTrc } from '../src/formats/trc.ts';

const dataDir = resolve(fileURLToPath(new URL('../../../../shared/data/marker_enhancer', import.meta.url)));
const trialPath = resolve(dataDir, 'test_data/squats.trc');

if (!existsSync(trialPath) || !existsSync(resolve(dataDir, 'reference_models/lstm/body/weights.h5'))) {
  console.log(`augmenter bench skipped: reference data missing under ${dataDir}`);
} else {
  const trial = readTrc(readFileSync(trialPath, 'utf8'));
  const subject = { heightM: 1.8, massKg: 75 };
  const frames = trial.timesS.length;
  for (const kind of ['lstm', 'linear']) {
    const augmenter = await loadMarkerAugmenter(resolve(dataDir, 'reference_models', kind));
    augmentMarkers(trial, subject, augmenter); // warm-up: let the JIT compile the loops
    const repeats = kind === 'lstm' ? 3 : 20;
    const start = performance.now();
    for (let r = 0; r < repeats; r++) augmentMarkers(trial, subject, augmenter);
    const seconds = (performance.now() - start) / 1000;
    console.log(
      `augmenter ${kind}: ${((frames * repeats) / seconds).toFixed(0)} frames/s (${frames} frames x ${repeats}, ${seconds.toFixed(2)} s)`,
    );
  }
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
}
