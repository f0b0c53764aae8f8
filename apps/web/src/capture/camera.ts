import type { DeviceCapabilities } from '@kinetrace/contracts';

/** Recording types, best first: MP4 (H.264) where the browser records it (Safari, recent Chrome), else WebM. */
const CANDIDATE_MIME_TYPES = [
  'video/mp4;codecs=avc1',
  'video/mp4',
  'video/webm;codecs=vp9',
  'video/webm;codecs=vp8',
  'video/webm',
];

export const recordableMimeTypes = (): string[] =>
  typeof MediaRecorder === 'undefined'
    ? []
    : CANDIDATE_MIME_TYPES.filter((type) => MediaRecorder.isTypeSupported(type));

/** Why the camera cannot be used, in words the person holding the phone can act on. */
export class CameraUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CameraUnavailableError';
  }
}

function cameraErrorMessage(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError')
    return 'The camera was refused. Allow the camera for this page in the browser settings, then reload the page.';
  if (name === 'NotFoundError' || name === 'OverconstrainedError')
    return 'This device has no camera the browser can use.';
  if (name === 'NotReadableError') return 'The camera is busy: close the other apps that use it, then reload the page.';
  return `The camera could not be opened (${error instanceof Error ? error.message : String(error)}).`;
}

/**
 * Opens the back camera at the largest size it offers. getUserMedia exists only in a secure context, so a
 * plain-http page on the LAN says so instead of failing obscurely.
 */
export async function openCamera(): Promise<MediaStream> {
  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia)
    throw new CameraUnavailableError(
      'Browsers allow the camera only on https or localhost: open this page through the https address of the server.',
    );
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      // Asking for far more than any phone gives makes the browser pick the largest size it has.
      video: { facingMode: { ideal: 'environment' }, width: { ideal: 4096 }, height: { ideal: 4096 } },
    });
  } catch (error) {
    throw new CameraUnavailableError(cameraErrorMessage(error));
  }
  return stream;
}

/** What the server learns about this phone's camera when it connects (`model` from device-model.ts). */
export function describeCamera(stream: MediaStream, model: string | null): DeviceCapabilities {
  const track = stream.getVideoTracks()[0];
  const settings = track.getSettings();
  const capabilities = typeof track.getCapabilities === 'function' ? track.getCapabilities() : {};
  const maxFramerate = capabilities.frameRate?.max ?? settings.frameRate ?? 30;
  const framerates = [30, 60, 120, 240].filter((fps) => fps <= Math.round(maxFramerate));
  return {
    model: navigator.userAgent.slice(0, 300),
    device_model: model,
    max_width: Math.round(capabilities.width?.max ?? settings.width ?? 1),
    max_height: Math.round(capabilities.height?.max ?? settings.height ?? 1),
    framerates: framerates.length > 0 ? framerates : [Math.round(maxFramerate)],
    mime_types: recordableMimeTypes(),
  };
}

/** Asks the camera for the order's frame rate (the browser keeps the nearest it can do). */
export async function requestFramerate(stream: MediaStream, framerate: number): Promise<void> {
  const track = stream.getVideoTracks()[0];
  try {
    await track.applyConstraints({ ...track.getConstraints(), frameRate: { ideal: framerate } });
  } catch {
    // Not every camera changes rate while open; recording at the rate it has beats not recording.
  }
}
