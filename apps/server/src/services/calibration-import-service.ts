import type { CameraModel } from '@kinetrace/mocap/camera/camera';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import {
  CALIBRATION_FILE_EXTENSIONS,
  CHECKERBOARD_DEFAULTS,
  importMessages,
  messages,
  MIN_CALIBRATED_CAMERAS,
  RESULT_TAGS,
  type ImportCalibrationResponse,
} from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { ParseUpload, UploadParserThreads } from '../upload-parsing/upload-parser-thread.ts';
import { refusalMessage } from '../upload-parsing/upload-refusals.ts';
import type { AuthContext } from './auth-service.ts';
import type { Removal } from './removal.ts';
import type { SessionService } from './session-service.ts';
import { trialFilesPrefix } from './storage-keys.ts';

/** A file received in a multipart request, saved at `path` under a server-made name. */
export interface UploadedFile {
  fileName: string;
  path: string;
  /** The multipart field it came in, where a request takes files under several names. */
  field?: string;
}

type CalibrationExtension = (typeof CALIBRATION_FILE_EXTENSIONS)[number];
const FORMAT_NAMES: Record<CalibrationExtension, string> = {
  '.json': 'Kinetrace camera',
  '.toml': 'Pose2Sim',
  '.qca.txt': 'Qualisys',
  '.pickle': 'OpenCap',
  '.pkl': 'OpenCap',
};
/** OpenCap writes every camera's pickle under this one name, in a folder per camera (Cam0, Cam1, ...). */
const OPENCAP_PICKLE_STEM = 'cameraintrinsicsextrinsics';

const extensionOf = (fileName: string) =>
  CALIBRATION_FILE_EXTENSIONS.find((extension) => fileName.toLowerCase().endsWith(extension));
const stemOf = (fileName: string, extension: string) => fileName.slice(0, fileName.length - extension.length);
const isPickle = (extension: CalibrationExtension) => extension === '.pickle' || extension === '.pkl';

/**
 * Reads one uploaded calibration file with the engine's readers, in an upload parser thread (chosen
 * by the file's name, which the upload's saved path no longer has). Any failure becomes one message
 * naming the file: a parser's own text would show server paths and internals.
 */
async function readCalibrationFile(
  parse: ParseUpload,
  file: UploadedFile,
  pickleCameraName: string,
  placement: 'Perpendicular' | 'Lying',
): Promise<CameraModel[]> {
  const extension = extensionOf(file.fileName);
  if (!extension) throw invalidFields({ file: [importMessages.calibrationFileType(file.fileName)] });
  const unreadable = importMessages.calibrationFileUnreadable(file.fileName, FORMAT_NAMES[extension]);
  let cameras: CameraModel[];
  try {
    cameras = await parse('camera-file', {
      path: file.path,
      fileName: `calibration${extension}`,
      options: { opencap: { name: pickleCameraName, placement } },
    });
  } catch (error) {
    throw invalidFields({ file: [refusalMessage(error, file.fileName, unreadable)] });
  }
  if (cameras.length === 0) throw invalidFields({ file: [unreadable] });
  return cameras;
}

/**
 * Camera names for OpenCap pickles: the file's name, or when several share OpenCap's fixed file
 * name, Cam0, Cam1, ... in upload order (OpenCap's own folder names).
 */
function pickleCameraNames(files: UploadedFile[]): string[] {
  const pickles = files.filter((file) => {
    const extension = extensionOf(file.fileName);
    return extension !== undefined && isPickle(extension);
  });
  const sharedName =
    pickles.filter((file) => stemOf(file.fileName, extensionOf(file.fileName)!).toLowerCase() === OPENCAP_PICKLE_STEM)
      .length > 1;
  return files.map((file) => {
    const extension = extensionOf(file.fileName);
    if (!extension || !isPickle(extension)) return '';
    const stem = stemOf(file.fileName, extension);
    return sharedName && stem.toLowerCase() === OPENCAP_PICKLE_STEM ? `Cam${pickles.indexOf(file)}` : stem;
  });
}

/** A storage-safe file name for a camera's parameters (camera names come from the user's files). */
const cameraFileName = (cameraName: string, index: number) =>
  `${index + 1}-${cameraName.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60)}.json`;

/**
 * Importing a calibration made elsewhere (spec §4.2, issue 9): the cameras of the uploaded files
 * become the session's calibrated cameras, as a calibration trial recorded with phones would.
 */
export function createCalibrationImportService(deps: {
  trials: TrialsRepository;
  files: FileStore;
  removal: Removal;
  sessionService: SessionService;
  parsers: UploadParserThreads;
  now: () => Date;
}) {
  const { trials, files, removal, sessionService, parsers, now } = deps;

  /** Stores the cameras as a done calibration trial; it replaces the previous calibration only once complete. */
  async function storeCalibration(
    sessionId: string,
    cameras: { camera: CameraModel; fileName: string }[],
  ): Promise<string> {
    const sourceFiles = [...new Set(cameras.map((entry) => entry.fileName))];
    // Kept in the recycle bin while its files are written, so nothing counts a half-stored calibration.
    const trial = await trials.insert({
      sessionId,
      name: 'calibration',
      status: 'done',
      trashed: true,
      trashedAt: now(),
      meta: { imported: true, source_files: sourceFiles },
    });
    try {
      for (const [index, { camera, fileName }] of cameras.entries()) {
        const key = `${trialFilesPrefix(sessionId, trial.id)}/results/${RESULT_TAGS.cameraParameters}/${cameraFileName(camera.name, index)}`;
        // The file goes to readers with the processed data: the uploaded file's name stays in the owner's meta.
        await files.put(key, Buffer.from(writeKinetraceCameras([camera], { kind: 'imported' })));
        await trials.insertResult({
          trialId: trial.id,
          tag: RESULT_TAGS.cameraParameters,
          storageKey: key,
          meta: { device_id: camera.name, camera_name: camera.name, source_file: fileName },
        });
      }
    } catch (error) {
      await removal.trial(sessionId, trial.id);
      throw error;
    }
    await trials.update(trial.id, { trashed: false, trashedAt: null });
    for (const previous of await trials.ofSession(sessionId)) {
      if (previous.name === 'calibration' && !previous.trashed && previous.id !== trial.id) {
        await trials.update(previous.id, { trashed: true, trashedAt: now() });
      }
    }
    return trial.id;
  }

  return {
    /** Reads every file first (one bad file refuses the whole import, naming it), then stores them together. */
    async importCalibration(
      context: AuthContext,
      sessionId: string,
      uploads: UploadedFile[],
    ): Promise<ImportCalibrationResponse> {
      const session = await sessionService.ownSession(context, sessionId);
      if (uploads.length === 0) throw invalidFields({ file: [messages.required] });
      const placement =
        (session.meta as { checkerboard?: { placement?: 'Perpendicular' | 'Lying' } }).checkerboard?.placement ??
        CHECKERBOARD_DEFAULTS.placement;
      const pickleNames = pickleCameraNames(uploads);
      const cameras: { camera: CameraModel; fileName: string }[] = [];
      await parsers.withThread('files', async (parse) => {
        for (const [index, upload] of uploads.entries()) {
          for (const camera of await readCalibrationFile(parse, upload, pickleNames[index], placement)) {
            if (cameras.some((entry) => entry.camera.name.toLowerCase() === camera.name.toLowerCase())) {
              throw invalidFields({ file: [importMessages.calibrationCameraTwice(camera.name, upload.fileName)] });
            }
            cameras.push({ camera, fileName: upload.fileName });
          }
        }
      });
      if (cameras.length < MIN_CALIBRATED_CAMERAS)
        throw invalidFields({ file: [importMessages.calibrationTooFewCameras(cameras.length)] });
      const trialId = await storeCalibration(sessionId, cameras);
      return { trial_id: trialId, cameras: cameras.map((entry) => entry.camera.name) };
    },
  };
}

export type CalibrationImportService = ReturnType<typeof createCalibrationImportService>;
