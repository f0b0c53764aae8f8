import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectPose2D } from '../../src/pose/detect-pose.ts';
import { COCO_17 } from '../../src/pose/keypoint-sets.ts';
import { keypointIndex } from '../../src/pose/keypoints.ts';
import type { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';
import { KEYPOINT_VALUES } from '../../src/pose/types.ts';
import { decodeImage } from '../../src/video/decode.ts';
import type { VideoFrame } from '../../src/video/types.ts';

interface CocoAnnotations {
  images: { id: number; file_name: string }[];
  annotations: {
    image_id: number;
    id: number;
    bbox: [number, number, number, number];
    keypoints: number[];
    num_keypoints: number;
  }[];
}

export interface PckResult {
  /** Fraction of labelled keypoints within 0.2 x max(bbox width, height) of the label. */
  pck: number;
  labelled: number;
  people: number;
  /** Median distance to the label over the box's longer side, of keypoints found. */
  medianErrorOfBox: number;
  perKeypoint: Record<string, { correct: number; labelled: number }>;
}

/** Copies the square crop of `image` centred on `bbox` and `scale` times its longer side (clamped to the image). */
function cropAround(image: VideoFrame, bbox: readonly number[], scale: number) {
  const side = Math.max(bbox[2], bbox[3]) * scale;
  const left = Math.max(0, Math.round(bbox[0] + bbox[2] / 2 - side / 2));
  const top = Math.max(0, Math.round(bbox[1] + bbox[3] / 2 - side / 2));
  const right = Math.min(image.width, Math.round(bbox[0] + bbox[2] / 2 + side / 2));
  const bottom = Math.min(image.height, Math.round(bbox[1] + bbox[3] / 2 + side / 2));
  const width = right - left;
  const height = bottom - top;
  const data = new Uint8Array(width * height * 3);
  for (let row = 0; row < height; row++) {
    data.set(
      image.data.subarray(((top + row) * image.width + left) * 3, ((top + row) * image.width + right) * 3),
      row * width * 3,
    );
  }
  return { left, top, frame: { timestampS: 0, width, height, data } };
}

/**
 * PCK@0.2 of our pose on the annotated COCO people (mmpose's test_coco.json): each person with
 * labelled keypoints is cropped around its box (1.5 x its longer side, so that the detector sees
 * it whole and bystanders mostly not), and a keypoint counts as correct within 0.2 x the box's
 * longer side (mmpose's PCKAccuracy with bbox normalisation).
 */
export async function cocoPck(annotationsPath: string, pool: PoseWorkerPool): Promise<PckResult> {
  const coco = JSON.parse(readFileSync(annotationsPath, 'utf8')) as CocoAnnotations;
  const perKeypoint: PckResult['perKeypoint'] = Object.fromEntries(
    COCO_17.map((name) => [name, { correct: 0, labelled: 0 }]),
  );
  let correct = 0;
  let labelled = 0;
  let people = 0;
  const errorsOfBox: number[] = [];
  for (const image of coco.images) {
    const pixels = await decodeImage(join(dirname(annotationsPath), image.file_name), 'rgb24');
    for (const person of coco.annotations.filter(
      (annotation) => annotation.image_id === image.id && annotation.num_keypoints > 0,
    )) {
      people++;
      const crop = cropAround(pixels, person.bbox, 1.5);
      const threshold = 0.2 * Math.max(person.bbox[2], person.bbox[3]);
      const found = await detectPose2D([crop.frame], {
        pool,
        cameraName: `${image.file_name} person ${person.id}`,
      }).catch(() => null);
      COCO_17.forEach((name, cocoIndex) => {
        const [labelX, labelY, visibility] = person.keypoints.slice(3 * cocoIndex, 3 * cocoIndex + 3);
        if (visibility === 0) return;
        labelled++;
        perKeypoint[name].labelled++;
        if (!found) return;
        const offset = keypointIndex(name) * KEYPOINT_VALUES;
        const x = found.data[offset] + crop.left;
        const y = found.data[offset + 1] + crop.top;
        errorsOfBox.push(Math.hypot(x - labelX, y - labelY) / Math.max(person.bbox[2], person.bbox[3]));
        if (Math.hypot(x - labelX, y - labelY) <= threshold) {
          correct++;
          perKeypoint[name].correct++;
        }
      });
    }
  }
  errorsOfBox.sort((a, b) => a - b);
  return {
    pck: correct / labelled,
    labelled,
    people,
    perKeypoint,
    medianErrorOfBox: errorsOfBox[Math.floor(errorsOfBox.length / 2)],
  };
}
