/** The API is served under this prefix, with the spec's paths (§7) after it, trailing slashes included. */
export const API_PREFIX = '/api';

export const accountPaths = {
  login: '/login/',
  logout: '/logout/',
  verify: '/verify/',
  checkOtpVerified: '/check-otp-verified/',
  resetOtpChallenge: '/reset-otp-challenge/',
  register: '/register/',
  getUserInfo: '/get_user_info/',
  updateProfile: '/update_profile/',
  updateProfilePicture: '/update_profile_picture/',
  resetPassword: '/reset-password/',
  newPassword: '/new-password/',
  setInstitutionalUse: '/set-institutional-use/',
  deleteAccount: '/delete-account/',
  /** Asks for a link that lets this browser through the login limits (the account's owner gets it). */
  sendUnlockLink: '/send-unlock-link/',
  /** Opens such a link: the browser becomes one the account remembers. */
  unlockLogin: '/unlock-login/',
  /** Who the token belongs to: lets the web check the stored token at start-up (§2.2). */
  me: '/me/',
} as const;

/** Personal API tokens (issue 22). GET list: the caller's tokens; POST list: makes one. */
export const personalTokenPaths = {
  list: '/personal-tokens/',
  revoke: (id: number | string) => `/personal-tokens/${id}/revoke/`,
} as const;

/** Public, non-secret facts about this installation (provider, external links) for the app shell. */
export const instancePaths = {
  info: '/instance/',
} as const;

/** §7 Sessions, Trials and Subjects. `{id}` placeholders are filled by the caller. */
export const dataPaths = {
  /** GET: the caller's sessions in full (OpenCap's client's list); GET on validSessions keeps those with a processed neutral. */
  sessions: '/sessions/',
  newSession: '/sessions/new/',
  session: (id: string) => `/sessions/${id}/`,
  validSessions: '/sessions/valid/',
  searchSessions: '/sessions/search_sessions/',
  /** What the recycle bin holds. */
  recycleBin: '/sessions/recycle_bin/',
  /** The recycle bin's "empty bin": the trashed trials it listed first, then the trashed sessions. */
  emptyTrash: '/sessions/empty_trash/',
  sessionAction: (id: string, action: string) => `/sessions/${id}/${action}/`,
  trial: (id: string) => `/trials/${id}/`,
  trialAction: (id: string, action: string) => `/trials/${id}/${action}/`,
  trialTags: (id: string) => `/trial-tags/${id}/get_tags_trial/`,
  subjects: '/subjects/',
  subject: (id: number) => `/subjects/${id}/`,
  subjectAction: (id: number, action: string) => `/subjects/${id}/${action}/`,
  subjectTags: (id: number) => `/subject-tags/${id}/get_tags_subject/`,
  taskReady: (taskId: string) => `/logs/${taskId}/on-ready/`,
} as const;

/** Static tag lists, served outside /api as the spec names them. */
export const tagListPaths = { subjects: '/tags/subjectTags.json', trials: '/tags/trialTags.json' } as const;

/** The phone's capture page and its calls (the pairing token of the QR code is the credential). */
export const capturePaths = {
  page: (pairingToken: string) => `/capture/${pairingToken}`,
  connect: (pairingToken: string) => `/capture/${pairingToken}/connect/`,
  state: (pairingToken: string) => `/capture/${pairingToken}/state/`,
  time: '/capture/time/',
  /** tus endpoint for video uploads. */
  uploads: '/capture/uploads/',
  /** The pose model files, outside /api (static, cacheable): the capture page runs the engine's model on them. */
  poseModels: '/pose-models/',
} as const;
