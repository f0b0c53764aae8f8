import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { naturalCompare } from '../camera/formats/qualisys.ts';
import type { KeypointSetName } from '../pose/keypoint-sets.ts';
import type { SessionVideo } from '../session/types.ts';
import { ProcessingError } from './processing-error.ts';

/**
 * The folder layout `kinetrace process` reads (docs/process.md):
 *
 *   videos/<camera>.<ext>            one trial, named after the folder
 *   videos/<camera>/<trial>.<ext>    several trials: one video per trial in each camera's folder
 *   keypoints/                       optional, 2D keypoints made elsewhere, laid out as videos/ is:
 *                                    <camera>.json (Kinetrace keypoints JSON) or <camera>/ (OpenPose
 *                                    files, one per frame) for one trial; <camera>/<trial>.json or
 *                                    <camera>/<trial>/ for several. A "_json" suffix (Pose2Sim's
 *                                    cam01_json/) is dropped.
 *   calibration/                     a camera file, or one calibration video/image per camera
 *   settings.json                    optional
 *
 * A camera of a trial with keypoints uses them on its video's frame times (or, with no video, at the
 * given frame rate); one without keypoints has them detected in its video.
 */
export const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.m4v', '.webm', '.mkv', '.avi'] as const;
export const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png'] as const;

export interface FolderTrial {
  name: string;
  /** Each camera's video and/or keypoints, cameras in natural order. */
  videos: SessionVideo[];
}

const isVideo = (file: string) => (VIDEO_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase());
const isJson = (file: string) => extname(file).toLowerCase() === '.json';
const stem = (file: string) => basename(file, extname(file));
const visible = (name: string) => !name.startsWith('.');
const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();
/** Pose2Sim names its per-camera OpenPose folders cam01_json. */
const withoutJsonSuffix = (name: string) => name.replace(/_json$/i, '');

/** Per trial (by name), per camera: a media file's path; `single` for the one-trial layout. */
interface TrialFiles {
  trials: Map<string, Map<string, string>>;
  single: boolean;
}

/**
 * One layout of `dir`: files directly in it (one trial, `singleTrial`), or one folder per camera
 * holding one entry per trial. `isEntry` tells a trial's entry (a video; a keypoints file or
 * folder of frame files), `nameOf` its trial or camera name. `single` imposes a layout (the videos'
 * on the keypoints: a camera folder of .json files is one trial's frames, or several trials' files).
 */
function readLayout(
  dir: string,
  singleTrial: string,
  isEntry: (path: string) => boolean,
  nameOf: (entry: string) => string,
  single?: boolean,
): TrialFiles {
  const entries = readdirSync(dir).filter(visible).sort(naturalCompare);
  const direct = single === false ? [] : entries.filter((name) => isEntry(join(dir, name)));
  const cameraDirs =
    single === true ? [] : entries.filter((name) => !direct.includes(name) && isDirectory(join(dir, name)));
  if (direct.length > 0 && cameraDirs.length > 0) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `${dir} mixes one trial's files (${direct[0]}) and camera folders (${cameraDirs[0]}); use one layout: <camera> entries for one trial, or <camera>/<trial> for several.`,
    );
  }
  const trials = new Map<string, Map<string, string>>();
  const add = (trial: string, camera: string, path: string) => {
    if (!trials.has(trial)) trials.set(trial, new Map());
    trials.get(trial)!.set(camera, path);
  };
  for (const name of direct) add(singleTrial, nameOf(name), join(dir, name));
  for (const camera of cameraDirs) {
    for (const name of readdirSync(join(dir, camera)).filter(visible).sort(naturalCompare)) {
      if (isEntry(join(dir, camera, name))) add(nameOf(name), withoutJsonSuffix(camera), join(dir, camera, name));
    }
  }
  return { trials, single: direct.length > 0 };
}

/** A keypoints entry: a Kinetrace keypoints file, or a folder holding OpenPose frame files (and no folders). */
function isKeypointsEntry(path: string): boolean {
  if (!isDirectory(path)) return isJson(path);
  const inside = readdirSync(path).filter(visible);
  return inside.some(isJson) && !inside.some((name) => isDirectory(join(path, name)));
}

/**
 * The trials of a folder: its videos, and the keypoints in `keypointsDir` (default `<folder>/keypoints`,
 * when there). `keypoints` sets the OpenPose files' keypoint set and the frame rate used without videos.
 */
export function findTrials(
  folder: string,
  keypoints: { dir?: string; keypointSet?: KeypointSetName; fps?: number } = {},
): FolderTrial[] {
  const videosDir = join(folder, 'videos');
  const keypointsDir = keypoints.dir ?? join(folder, 'keypoints');
  const hasKeypoints = isDirectory(keypointsDir);
  if (keypoints.dir !== undefined && !hasKeypoints)
    throw new ProcessingError('INVALID_FOLDER', `No keypoints folder at ${keypointsDir}.`);
  if (!isDirectory(videosDir) && !hasKeypoints) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `No "videos" folder in ${folder}. Put one video per camera in ${videosDir} (videos/cam1.mp4, videos/cam2.mp4, ...), or one folder per camera with one video per trial; or 2D keypoints in ${join(folder, 'keypoints')}.`,
    );
  }
  const single = trialNameOf(folder);
  const videoLayout = isDirectory(videosDir)
    ? readLayout(videosDir, single, (path) => isVideo(path) && statSync(path).isFile(), stem)
    : undefined;
  const videos = videoLayout?.trials ?? new Map<string, Map<string, string>>();
  const keypointFiles = hasKeypoints
    ? readLayout(
        keypointsDir,
        single,
        isKeypointsEntry,
        (name) => withoutJsonSuffix(stem(name)),
        videoLayout && videos.size > 0 ? videoLayout.single : undefined,
      ).trials
    : new Map<string, Map<string, string>>();
  const names = [...new Set([...videos.keys(), ...keypointFiles.keys()])].sort(naturalCompare);
  if (names.length === 0) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `No videos found in ${videosDir}. Supported: ${VIDEO_EXTENSIONS.join(', ')}${hasKeypoints ? `; and no keypoints in ${keypointsDir}` : ''}.`,
    );
  }
  return names.map((name) => {
    const [trialVideos, trialKeypoints] = [videos.get(name), keypointFiles.get(name)];
    const cameras = [...new Set([...(trialVideos?.keys() ?? []), ...(trialKeypoints?.keys() ?? [])])].sort(
      naturalCompare,
    );
    return {
      name,
      videos: cameras.map((cameraName) => {
        const keypointsPath = trialKeypoints?.get(cameraName);
        return {
          cameraName,
          path: trialVideos?.get(cameraName),
          ...(keypointsPath && {
            keypoints: { path: keypointsPath, keypointSet: keypoints.keypointSet, fps: keypoints.fps },
          }),
        };
      }),
    };
  });
}

/** A trial name safe for file names: the folder's name, with other characters replaced by "_". */
function trialNameOf(folder: string): string {
  const name = basename(folder.replace(/[\\/]+$/, '')).replace(/[^A-Za-z0-9_-]+/g, '_');
  return name || 'trial';
}
