import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialInputsManifest, WireKeypoints } from '@kinetrace/contracts';
import type { KeypointsSource } from '@kinetrace/mocap/formats/keypoints-2d-files';
import type { CameraModel, LensIntrinsics, ProcessingSettings, SessionVideo } from '@kinetrace/mocap/session/types';
import { keypointsSourceIn } from './keypoints-files.ts';
import { augmenterDirOf, modelPathOf } from './processing-settings.ts';
import type { TrialInputs } from './trial-io.ts';

/**
 * A trial's inputs on the wire (the worker API's inputs, packages/contracts workers.ts) and back: numbers
 * in arrays instead of typed arrays, each video a link, its imported 2D keypoints links to their files,
 * the operator's installed files by name.
 */
type WireVideo = TrialInputsManifest['videos'][number];
type WireCamera = Extract<TrialInputsManifest, { kind: 'movement' }>['cameras'][number];
type WireSettings = Extract<TrialInputsManifest, { kind: 'movement' }>['settings'];

const cameraToWire = (camera: CameraModel): WireCamera => ({
  name: camera.name,
  imageSize: camera.imageSize,
  intrinsics: [...camera.intrinsics],
  distortion: [...camera.distortion],
  rotationCameraFromWorld: [...camera.rotationCameraFromWorld],
  translationCameraFromWorldM: [...camera.translationCameraFromWorldM],
});
const cameraFromWire = (camera: WireCamera): CameraModel => ({
  name: camera.name,
  imageSize: camera.imageSize,
  intrinsics: Float64Array.from(camera.intrinsics),
  distortion: Float64Array.from(camera.distortion),
  rotationCameraFromWorld: Float64Array.from(camera.rotationCameraFromWorld),
  translationCameraFromWorldM: Float64Array.from(camera.translationCameraFromWorldM),
});
const lensFromWire = (lens: NonNullable<WireVideo['lens']>): LensIntrinsics => ({
  imageSize: lens.imageSize,
  intrinsics: Float64Array.from(lens.intrinsics),
  distortion: Float64Array.from(lens.distortion),
});

function settingsToWire({ augmenterDir, modelPath, ...settings }: ProcessingSettings): WireSettings {
  return {
    ...settings,
    poseModel: settings.poseModel,
    augmenterInstalled: augmenterDir !== undefined,
    modelInstalled: modelPath !== undefined,
  };
}

/** Installed files are looked for under the worker's own install folder; one the server has must be there too. */
function settingsFromWire(
  { augmenterInstalled, modelInstalled, ...settings }: WireSettings,
  installDir: string,
): ProcessingSettings {
  const installed = (path: string) => {
    if (!existsSync(path))
      throw new Error(
        `The server has ${path.slice(installDir.length + 1)} installed but this worker has not (under ${installDir})`,
      );
    return path;
  };
  return {
    ...settings,
    ...(augmenterInstalled && { augmenterDir: installed(augmenterDirOf(installDir, settings.requestedAugmenter!)) }),
    ...(modelInstalled && { modelPath: installed(modelPathOf(installDir, settings.requestedModel!)) }),
  };
}

/**
 * The server's side: `inputs` whose video paths are links, with each link's file name, and whose keypoints
 * sources stand for the links to their files (`keypointsOf`).
 */
export function manifestOf(
  inputs: TrialInputs,
  fileNameOf: (link: string) => string,
  keypointsOf: (source: KeypointsSource) => WireKeypoints,
): TrialInputsManifest {
  const linkOf = (video: SessionVideo) => {
    // The server's inputs are its stored videos (2D keypoints made elsewhere come with the engine's CLI only).
    if (video.path === undefined) throw new Error(`The video of ${video.cameraName} has no link`);
    return video.path;
  };
  const video = (video: SessionVideo & { lens?: LensIntrinsics }): WireVideo => ({
    cameraName: video.cameraName,
    url: linkOf(video),
    fileName: fileNameOf(linkOf(video)),
    ...(video.firstFrameTimeS !== undefined && { firstFrameTimeS: video.firstFrameTimeS }),
    ...(video.keypoints && { keypoints: keypointsOf(video.keypoints) }),
    ...(video.lens && {
      lens: {
        imageSize: video.lens.imageSize,
        intrinsics: [...video.lens.intrinsics],
        distortion: [...video.lens.distortion],
      },
    }),
  });
  switch (inputs.kind) {
    case 'calibration':
      return { kind: inputs.kind, videos: inputs.videos.map(video), board: inputs.board };
    case 'neutral':
      return {
        ...inputs,
        videos: inputs.videos.map(video),
        cameraSolutions: inputs.cameraSolutions.map((solutions) => solutions.map(cameraToWire)),
        settings: settingsToWire(inputs.settings),
      };
    case 'movement':
      return {
        ...inputs,
        videos: inputs.videos.map(video),
        cameras: inputs.cameras.map(cameraToWire),
        settings: settingsToWire(inputs.settings),
      };
  }
}

/** The worker's side: the inputs with each video and its keypoints in `workDir`, once downloaded there. */
export function inputsOf(manifest: TrialInputsManifest, workDir: string, installDir: string): TrialInputs {
  const video = ({ cameraName, fileName, firstFrameTimeS, keypoints }: WireVideo): SessionVideo & { path: string } => ({
    cameraName,
    path: join(workDir, fileName),
    ...(keypoints && { keypoints: keypointsSourceIn(workDir, keypoints) }),
    ...(firstFrameTimeS !== undefined && { firstFrameTimeS }),
  });
  switch (manifest.kind) {
    case 'calibration':
      return {
        kind: manifest.kind,
        board: manifest.board,
        videos: manifest.videos.map((wire) => ({
          ...video(wire),
          ...(wire.lens && { lens: lensFromWire(wire.lens) }),
        })),
      };
    case 'neutral':
      return {
        ...manifest,
        videos: manifest.videos.map(video),
        cameraSolutions: manifest.cameraSolutions.map((solutions) => solutions.map(cameraFromWire)),
        settings: settingsFromWire(manifest.settings, installDir),
      };
    case 'movement':
      return {
        ...manifest,
        videos: manifest.videos.map(video),
        cameras: manifest.cameras.map(cameraFromWire),
        settings: settingsFromWire(manifest.settings, installDir),
      };
  }
}
