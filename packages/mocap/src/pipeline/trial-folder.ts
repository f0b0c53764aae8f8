import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { naturalCompare } from '../camera/formats/qualisys.ts';
import { ProcessingError } from './processing-error.ts';

/**
 * The folder layout `kinetrace process <folder>` reads (docs/process.md):
 *
 *   videos/<camera>.<ext>            one trial, named after the folder
 *   videos/<camera>/<trial>.<ext>    several trials: one video per trial in each camera's folder
 *   calibration/                     a camera file, or one calibration video/image per camera
 *   settings.json                    optional
 */
export const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.m4v', '.webm', '.mkv', '.avi'] as const;
export const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png'] as const;

export interface FolderTrial {
  name: string;
  /** Camera name → video path, cameras in natural order. */
  videos: { cameraName: string; path: string }[];
}

const isVideo = (file: string) => (VIDEO_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase());
const stem = (file: string) => basename(file, extname(file));
const visible = (name: string) => !name.startsWith('.');

export function findTrials(folder: string): FolderTrial[] {
  const videosDir = join(folder, 'videos');
  if (!existsSync(videosDir) || !statSync(videosDir).isDirectory()) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `No "videos" folder in ${folder}. Put one video per camera in ${videosDir} (videos/cam1.mp4, videos/cam2.mp4, ...), or one folder per camera with one video per trial.`,
    );
  }
  const entries = readdirSync(videosDir).filter(visible).sort(naturalCompare);
  const directVideos = entries.filter((name) => isVideo(name) && statSync(join(videosDir, name)).isFile());
  const cameraDirs = entries.filter((name) => statSync(join(videosDir, name)).isDirectory());
  if (directVideos.length > 0 && cameraDirs.length > 0) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `${videosDir} mixes videos and camera folders; use one layout: videos/<camera>.mp4 or videos/<camera>/<trial>.mp4.`,
    );
  }
  if (directVideos.length > 0) {
    return [
      {
        name: trialNameOf(folder),
        videos: directVideos.map((file) => ({ cameraName: stem(file), path: join(videosDir, file) })),
      },
    ];
  }
  const trials = new Map<string, FolderTrial>();
  for (const cameraName of cameraDirs) {
    for (const file of readdirSync(join(videosDir, cameraName)).filter(visible).filter(isVideo).sort(naturalCompare)) {
      const name = stem(file);
      if (!trials.has(name)) trials.set(name, { name, videos: [] });
      trials.get(name)!.videos.push({ cameraName, path: join(videosDir, cameraName, file) });
    }
  }
  if (trials.size === 0) {
    throw new ProcessingError(
      'INVALID_FOLDER',
      `No videos found in ${videosDir}. Supported: ${VIDEO_EXTENSIONS.join(', ')}.`,
    );
  }
  return [...trials.values()].sort((a, b) => naturalCompare(a.name, b.name));
}

/** A trial name safe for file names: the folder's name, with other characters replaced by "_". */
function trialNameOf(folder: string): string {
  const name = basename(folder.replace(/[\\/]+$/, '')).replace(/[^A-Za-z0-9_-]+/g, '_');
  return name || 'trial';
}
