import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ProcessingError } from '../../src/pipeline/processing-error.ts';
import { findTrials } from '../../src/pipeline/trial-folder.ts';

const root = mkdtempSync(join(tmpdir(), 'kinetrace-trial-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Empty files at the given paths under a new folder `name`: findTrials only lists them. */
function folderWith(name: string, files: string[]): string {
  const folder = join(root, name);
  for (const file of files) {
    mkdirSync(join(folder, file, '..'), { recursive: true });
    writeFileSync(join(folder, file), '');
  }
  return folder;
}

it('pairs each trial camera’s keypoints with its video, in the videos’ layout, and keeps the others detected', () => {
  const folder = folderWith('session', [
    'videos/cam1/neutral.mp4',
    'videos/cam1/walk.mp4',
    'videos/cam2/neutral.mp4',
    'videos/cam2/walk.mp4',
    'keypoints/cam1/walk.json',
    'keypoints/cam2_json/walk/cam2_000000000000_keypoints.json',
  ]);
  const trials = findTrials(folder, { keypointSet: 'halpe26' });
  expect(trials.map((trial) => trial.name)).toEqual(['neutral', 'walk']);
  expect(trials[0].videos.every((video) => video.keypoints === undefined)).toBe(true);
  expect(trials[1].videos).toEqual([
    {
      cameraName: 'cam1',
      path: join(folder, 'videos/cam1/walk.mp4'),
      keypoints: { path: join(folder, 'keypoints/cam1/walk.json'), keypointSet: 'halpe26', fps: undefined },
    },
    {
      cameraName: 'cam2',
      path: join(folder, 'videos/cam2/walk.mp4'),
      keypoints: { path: join(folder, 'keypoints/cam2_json/walk'), keypointSet: 'halpe26', fps: undefined },
    },
  ]);
});

it('takes the trial from the keypoints alone when there are no videos, and names a missing keypoints folder', () => {
  const folder = folderWith('walk_2', ['keypoints/cam1/f0.json', 'keypoints/cam2/f0.json']);
  const [trial] = findTrials(folder, { fps: 50 });
  expect(trial.name).toBe('walk_2');
  expect(trial.videos.map((video) => [video.cameraName, video.path, video.keypoints?.fps])).toEqual([
    ['cam1', undefined, 50],
    ['cam2', undefined, 50],
  ]);
  expect(() => findTrials(folder, { dir: join(folder, 'nowhere') })).toThrow(ProcessingError);
  expect(() => findTrials(folderWith('empty', ['notes.txt']))).toThrow(/No "videos" folder/);
});
