import {
  API_PREFIX,
  capturePaths,
  errorText,
  PAIRING_TOKEN_HEADER,
  PHONE_KEYPOINTS_UPLOAD,
} from '@kinetrace/contracts';
import { Upload, type DetailedError } from 'tus-js-client';
import type { RecordedVideo } from './trial-recorder.ts';

/** 4 MB chunks: small enough to resend cheaply over a phone's link, large enough to keep requests few. */
const CHUNK_SIZE_BYTES = 4 * 1024 * 1024;
/** Retries after a dropped connection, then the page's own retry on the next state poll takes over. */
const RETRY_DELAYS_MS = [0, 1_000, 3_000, 5_000, 10_000, 20_000];

/** The server refused this video for good (wrong trial, already uploaded...): retrying cannot help. */
export class UploadRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadRefusedError';
  }
}

const extensionOf = (mimeType: string) => (mimeType.startsWith('video/mp4') ? 'mp4' : 'webm');

/** Answers that refuse the video itself (bad metadata, trial no longer waiting, already uploaded, unreadable). */
const REFUSAL_STATUSES = new Set([400, 404, 410, 413, 422]);

function refusalOf(error: Error | DetailedError): UploadRefusedError | null {
  const response = 'originalResponse' in error ? error.originalResponse : null;
  const status = response?.getStatus() ?? 0;
  let body: unknown = response?.getBody();
  try {
    body = JSON.parse(String(body));
  } catch {
    // A plain-text refusal is shown as it is.
  }
  // tus answers a bare 409 for an offset mismatch (worth retrying); the server's 409 carries a {detail}.
  const serverRefusal = status === 409 && typeof body === 'object' && body !== null && 'detail' in body;
  if (!REFUSAL_STATUSES.has(status) && !serverRefusal) return null;
  return new UploadRefusedError(errorText(body, `The server refused the video (${status}).`));
}

export interface VideoUploadTarget {
  pairingToken: string;
  deviceId: string;
}

interface TusFile {
  blob: Blob;
  /** Tells this upload from the phone's others, so a reloaded page resumes the one the server holds. */
  fingerprint: string;
  metadata: Record<string, string>;
  retryDelaysMs: number[];
}

/** Uploads one file with tus (resumable, chunked), the pairing token on every request. */
function tusUpload(
  file: TusFile,
  target: VideoUploadTarget,
  onProgress: (sentBytes: number, totalBytes: number) => void,
): { done: Promise<void>; abort: () => void } {
  let upload: Upload | null = null;
  const done = new Promise<void>((resolve, reject) => {
    const endpoint = `${location.origin}${API_PREFIX}${capturePaths.uploads}`;
    upload = new Upload(file.blob, {
      endpoint,
      chunkSize: CHUNK_SIZE_BYTES,
      retryDelays: file.retryDelaysMs,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      fingerprint: () =>
        Promise.resolve(['kinetrace', target.deviceId, file.fingerprint, file.blob.size, endpoint].join('-')),
      // Every tus request (resume, offset check, cancel) carries the credential, not only the creation.
      headers: { [PAIRING_TOKEN_HEADER]: target.pairingToken },
      metadata: { pairing_token: target.pairingToken, device_id: target.deviceId, ...file.metadata },
      onShouldRetry: (error) => refusalOf(error) === null,
      onProgress,
      onSuccess: () => resolve(),
      onError: (error) => reject(refusalOf(error) ?? error),
    });
    const started = upload;
    void started.findPreviousUploads().then((previous) => {
      if (previous[0]) started.resumeFromPreviousUpload(previous[0]);
      started.start();
    }, reject);
  });
  return { done, abort: () => void upload?.abort() };
}

/** What the server files a phone's upload under: the trial, and when its video's first frame was taken. */
const trialMetadata = (video: RecordedVideo): Record<string, string> => ({
  trial_id: video.trialId,
  ...(video.firstFrameMs === null ? {} : { first_frame_ms: String(Math.round(video.firstFrameMs)) }),
});

/**
 * Uploads a recorded video. Its fingerprint is the trial and the device, so a reloaded page that uploads the
 * same stored video resumes the upload the server already holds.
 */
export function uploadVideo(
  video: RecordedVideo,
  target: VideoUploadTarget,
  onProgress: (sentBytes: number, totalBytes: number) => void,
): { done: Promise<void>; abort: () => void } {
  return tusUpload(
    {
      blob: video.blob,
      fingerprint: video.trialId,
      retryDelaysMs: RETRY_DELAYS_MS,
      metadata: {
        ...trialMetadata(video),
        filetype: video.mimeType,
        filename: `${video.trialName}.${extensionOf(video.mimeType)}`,
      },
    },
    target,
    onProgress,
  );
}

/**
 * Keypoints are optional and sent before the video: a short retry only, so a failing upload soon gives way
 * to the video (which the server then processes with its own detection).
 */
const KEYPOINTS_RETRY_DELAYS_MS = [0, 1_000, 3_000];

/** Uploads the 2D keypoints the phone found in a recorded video (issue 24), as its video goes: same metadata, `kind` keypoints. */
export function uploadKeypoints(
  video: RecordedVideo & { keypoints: Blob },
  target: VideoUploadTarget,
): { done: Promise<void>; abort: () => void } {
  return tusUpload(
    {
      blob: video.keypoints,
      fingerprint: `${video.trialId}-${PHONE_KEYPOINTS_UPLOAD.kind}`,
      retryDelaysMs: KEYPOINTS_RETRY_DELAYS_MS,
      metadata: {
        kind: PHONE_KEYPOINTS_UPLOAD.kind,
        ...trialMetadata(video),
        filetype: 'application/json',
        filename: `${video.trialName}.keypoints.json`,
      },
    },
    target,
    () => undefined,
  );
}
