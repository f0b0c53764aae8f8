import { importMessages } from '@kinetrace/contracts';
import { UploadParseError } from './upload-parser-thread.ts';

/**
 * The message for a file an upload parser refused: one that went past its thread's time or memory
 * limit, one over CALIBRATION_FILE_MAX_BYTES, one naming __proto__, constructor or prototype, a camera the camera schema refused (what
 * to fix), or else `unreadable` (the parser's own text would show internals). Anything else (the thread itself failed) is not the file's fault: rethrown.
 */
export function refusalMessage(error: unknown, fileName: string, unreadable: string): string {
  if (!(error instanceof UploadParseError)) throw error;
  if (error.reason !== 'refused') return importMessages.fileTooDemanding(fileName);
  if (error.parserError?.name === 'UnsafeKeyError') return importMessages.fileUnsafeName(fileName);
  if (error.parserError?.name === 'CalibrationFileTooLargeError')
    return importMessages.calibrationFileTooLarge(fileName);
  // The camera schema's own words (contracts' cameraMessages), after which camera they are about.
  if (error.parserError?.name === 'CameraParametersError')
    return importMessages.calibrationCameraInvalid(fileName, error.parserError.message);
  return unreadable;
}
