/** Business constants of the product spec (§9). One definition each; server and web import them. */

/** A login session lasts 12 hours; the web app restarts its timer on each route change. */
export const SESSION_DURATION_MS = 43_200_000;
/** A device remembered at verification skips the e-mailed code for 90 days. */
export const REMEMBER_DEVICE_MS = 7_776_000_000;
export const OTP_CODE_LENGTH = 6;
/** An e-mailed code expires after 10 minutes and allows at most 5 wrong tries. */
export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_WRONG_ATTEMPTS = 5;
export const PASSWORD_MIN_LENGTH = 20;
/** A password-reset link is single-use and expires after one hour. */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;
export const PROFILE_PICTURE_MAX_BYTES = 5 * 1024 * 1024;

export const SESSIONS_PAGE_SIZE = 40;
export const SUBJECTS_PAGE_SIZE = 40;
export const NEUTRAL_SUBJECT_PICKER_PAGE_SIZE = 40;
export const FULL_SUBJECT_LOAD_PAGE_SIZE = 100;

export const TRASH_RETENTION_DAYS = 30;
export const DOUBLE_CLICK_WINDOW_MS = 300;
export const DOWNLOAD_FLAG_RESET_MS = 5_000;

export const TOAST_DURATION_MS = {
  error: 10_000,
  success: 10_000,
  appStoreNotice: 20_000,
  anyPoseNotice: 8_000,
  calibrationSuccess: 5_000,
  neutralRelaxNotice: 5_000,
} as const;

export const POLLING_INTERVAL_MS = {
  calibrationStatus: 1_000,
  neutralStatus: 1_000,
  recorderStatus: 2_000,
  trialsList: 5_000,
  cameraConnection: 500,
  asyncTask: 1_000,
} as const;
export const CAMERA_CONNECTION_WAIT_MS = 5_000;

export const DEFAULT_SUBJECT_WEIGHT_KG = 70;
export const DEFAULT_SUBJECT_HEIGHT_M = 1.8;
export const SUBJECT_WEIGHT_RANGE_KG = { min: 1, max: 200 } as const;
export const SUBJECT_HEIGHT_RANGE_M = { min: 0.1, max: 3 } as const;
export const SUBJECT_MIN_BIRTH_YEAR = 1900;

export const CHECKERBOARD_DEFAULTS = { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' } as const;
/** The checkerboard numbers a session or a lens calibration takes: inner corners per row or column, square size. */
export const CHECKERBOARD_RANGES = { corners: { min: 2, max: 50 }, squareSizeMm: { max: 1000 } } as const;
export const DEFAULT_CAMERA_COUNT = 2;
export const MIN_CALIBRATED_CAMERAS = 2;

/** Recording limits per frame rate (fps → seconds). */
export const RECORDING_LIMIT_S: Record<number, number> = { 60: 60, 120: 30, 240: 15 };
export const DEFAULT_FRAMERATE = 60;
export const DEFAULT_RECORDING_LIMIT_S = 60;

export const PLAYBACK_SPEEDS = [0.1, 0.25, 0.5, 0.75, 1, 2] as const;

export const DATE_FORMATS = {
  dateTime: 'MMM. DD, YYYY, h:mm a',
  date: 'MMM. DD, YYYY',
  time: 'h:mm a',
} as const;
