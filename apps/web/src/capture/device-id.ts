const STORAGE_KEY = 'kinetrace_capture_device_id';

/**
 * The phone's stable id: made once, kept in local storage, so that a reloaded page (or a re-scanned QR code)
 * is the same camera to the server and its unfinished uploads stay its own.
 */
export function captureDeviceId(): string {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored && /^[A-Za-z0-9_-]{8,64}$/.test(stored)) return stored;
  const created = crypto.randomUUID().replaceAll('-', '');
  localStorage.setItem(STORAGE_KEY, created);
  return created;
}
