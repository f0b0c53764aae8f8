/** §2.1 route names, and the paths the app links to. */
export type RouteName =
  | 'Login'
  | 'Verify'
  | 'License'
  | 'Register'
  | 'SelectSession'
  | 'ConnectDevicesForId'
  | 'ConnectDevices'
  | 'Calibration'
  | 'Neutral'
  | 'Session'
  | 'Dashboard'
  | 'AnalysisDashboard'
  | 'ResetPassword'
  | 'NewPassword'
  | 'UnlockLogin'
  | 'RecycleBin'
  | 'Subjects'
  | 'ProfilePage';

/** The paths of the routes that take no parameter. */
export const fixedPaths = {
  Login: '/login',
  Verify: '/verify',
  License: '/license',
  /** The sign-up link; any `/register-<suffix>` path opens Register. */
  Register: '/register-kinetrace',
  SelectSession: '/sessions',
  ConnectDevices: '/connect-devices',
  ResetPassword: '/reset-password',
  RecycleBin: '/recycle-bin',
  Subjects: '/subjects',
} as const satisfies Partial<Record<RouteName, string>>;

/** The Session route (§2.1) of a session; a public session is shared with the same URL. */
export const sessionPath = (id: string) => `/session/${id}`;

/** The page a login unlock link opens (its token is the last path segment). */
export const unlockLoginPath = (token: string) => `/unlock-login/${token}`;

export const profilePath = (username: string) => `/profile/${encodeURIComponent(username)}/`;

/** React Router route handle: every route carries its spec name for the guard and the shell. */
export interface RouteHandle {
  name: RouteName;
}
