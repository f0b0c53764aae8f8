/** Business constants of the product spec (§9). One definition each; server and web import them. */

/**
 * A login session lasts 12 hours after its last use: the web app restarts its timer on each route change, the
 * server its token's expiry on each call (at most once a minute, LOGIN_SLIDE_STEP_MS).
 */
export const SESSION_DURATION_MS = 43_200_000;
/**
 * However active, a login ends 30 days after it began and the password (and code) are asked again: NIST SP
 * 800-63B §4.1.3 asks reauthentication at least once per 30 days at AAL1, the level an e-mailed code reaches
 * (§5.1.3.1 does not accept e-mail as an out-of-band channel at AAL2).
 */
export const LOGIN_ABSOLUTE_LIMIT_MS = 30 * 24 * 3_600_000;
/** A token's expiry moves forward once it has aged this much since it was last moved: one write a minute at most per login. */
export const LOGIN_SLIDE_STEP_MS = 60_000;
/** A device remembered at verification skips the e-mailed code for 90 days. */
export const REMEMBER_DEVICE_MS = 7_776_000_000;
export const OTP_CODE_LENGTH = 6;
/** An e-mailed code expires after 10 minutes and allows at most 5 wrong tries. */
export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_WRONG_ATTEMPTS = 5;
export const PASSWORD_MIN_LENGTH = 20;
/** A password-reset link is single-use and expires after one hour. */
export const PASSWORD_RESET_TTL_MS = 60 * 60_000;
/** A login unlock link (for the owner of an account held back after many wrong passwords): single-use, one hour. */
export const UNLOCK_LINK_TTL_MS = 60 * 60_000;
/**
 * A personal API token works for a year (its owner may revoke it sooner on the Profile page): long enough for a
 * lab's scripts, short enough that a forgotten one ends. At most 20 live tokens per account.
 */
export const PERSONAL_TOKEN_TTL_MS = 365 * 24 * 60 * 60_000;
export const PERSONAL_TOKENS_MAX = 20;
export const PROFILE_PICTURE_MAX_BYTES = 5 * 1024 * 1024;
/**
 * Profile pictures are public and shown in every visitor's browser, which decodes the whole image: a 5 MB
 * PNG can say 60,000 x 60,000 pixels (14 GB decoded). 16 megapixels is above a phone photo's 12.
 */
export const PROFILE_PICTURE_MAX_PIXELS = 16_000_000;
/**
 * A video's frames are at most 8K UHD (7680 x 4320, 33 megapixels; phones record up to 4K): processing decodes
 * every frame, and a larger one is no camera's recording (issue 20's hostile uploads).
 */
export const VIDEO_MAX_FRAME_PIXELS = 7680 * 4320;

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
/**
 * The longest trial at `framerate` fps: the limit of the slowest recording rate at or above it (3,600
 * frames at each), so an imported 30 fps video may last 60 s and one above 240 fps 15 s.
 */
export function recordingLimitS(framerate: number): number {
  const rates = Object.keys(RECORDING_LIMIT_S).map(Number);
  const rate = rates.filter((candidate) => candidate >= framerate).sort((a, b) => a - b)[0] ?? Math.max(...rates);
  return RECORDING_LIMIT_S[rate];
}

export const PLAYBACK_SPEEDS = [0.1, 0.25, 0.5, 0.75, 1, 2] as const;

export const DATE_FORMATS = {
  dateTime: 'MMM. DD, YYYY, h:mm a',
  date: 'MMM. DD, YYYY',
  time: 'h:mm a',
} as const;
