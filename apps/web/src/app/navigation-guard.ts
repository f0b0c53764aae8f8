import { needsLicenseAnswer, type InstitutionalUse } from '@kinetrace/contracts';
import type { RouteName } from './route-names.ts';

/**
 * Routes anyone may open without logging in (§2.2, §6), and UnlockLogin, the page of the link that lets an
 * account's owner log in despite the wrong passwords others tried.
 */
const PUBLIC_ROUTES: ReadonlySet<RouteName> = new Set([
  'UnlockLogin',
  'Login',
  'Register',
  'Session',
  'ResetPassword',
  'NewPassword',
  'Dashboard',
  'AnalysisDashboard',
  'ProfilePage',
]);

/**
 * Routes that work inside a session being set up; without one the user starts at ConnectDevices. Their path
 * names the session, so the one in the address (the user's own) is the active one after a reload or a bookmark.
 */
const ROUTES_NEEDING_ACTIVE_SESSION: ReadonlySet<RouteName> = new Set([
  'Calibration',
  'Neutral',
  'ConnectDevicesForId',
]);
export const needsActiveSession = (route: RouteName) => ROUTES_NEEDING_ACTIVE_SESSION.has(route);

export interface GuardState {
  loggedIn: boolean;
  verified: boolean;
  institutionalUse: InstitutionalUse | null;
  hasActiveSession: boolean;
}

/**
 * §2.2: where a user who asks for `target` must go instead, or null when they may stay.
 * Not logged in: public routes only. Logged in, not verified: Verify (and Login, UnlockLogin) only. Verified with an
 * empty or not-permitted declared use: License. Session-setup steps need an active session.
 */
export function guardRedirect(target: RouteName, state: GuardState): 'Login' | 'License' | 'ConnectDevices' | null {
  if (!state.loggedIn) return PUBLIC_ROUTES.has(target) ? null : 'Login';
  if (!state.verified) return target === 'Verify' || target === 'Login' || target === 'UnlockLogin' ? null : 'Login';
  if (needsLicenseAnswer(state.institutionalUse)) return target === 'License' ? null : 'License';
  if (ROUTES_NEEDING_ACTIVE_SESSION.has(target) && !state.hasActiveSession) return 'ConnectDevices';
  return null;
}

/** Where a verified user goes next (§4.1). */
export const afterVerification = (institutionalUse: InstitutionalUse | null): 'License' | 'SelectSession' =>
  needsLicenseAnswer(institutionalUse) ? 'License' : 'SelectSession';
