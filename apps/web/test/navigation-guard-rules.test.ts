import { describe, expect, it } from 'vitest';
import { afterVerification, guardRedirect, type GuardState } from '../src/app/navigation-guard.ts';
import type { RouteName } from '../src/app/route-names.ts';

/** The §2.2 decision table over every route name, for each kind of visitor. */
const ALL_ROUTES: RouteName[] = [
  'Login',
  'Verify',
  'License',
  'Register',
  'SelectSession',
  'ConnectDevicesForId',
  'ConnectDevices',
  'Calibration',
  'Neutral',
  'Session',
  'Dashboard',
  'AnalysisDashboard',
  'ResetPassword',
  'NewPassword',
  'UnlockLogin',
  'RecycleBin',
  'Subjects',
  'ProfilePage',
];

const visitor: GuardState = { loggedIn: false, verified: false, institutionalUse: null, hasActiveSession: false };
const researcher: GuardState = {
  loggedIn: true,
  verified: true,
  institutionalUse: 'research_at_academic',
  hasActiveSession: false,
};

const redirects = (state: GuardState) =>
  Object.fromEntries(ALL_ROUTES.map((route) => [route, guardRedirect(route, state)]));

describe('guardRedirect', () => {
  it('lets a signed-out visitor open exactly the public routes of §2.2 and sends the rest to Login', () => {
    const open = ALL_ROUTES.filter((route) => guardRedirect(route, visitor) === null);
    expect(open.sort()).toEqual(
      [
        'AnalysisDashboard',
        'Dashboard',
        'Login',
        'NewPassword',
        'ProfilePage',
        'Register',
        'ResetPassword',
        'Session',
        'UnlockLogin',
      ].sort(),
    );
    for (const route of ALL_ROUTES)
      if (!open.includes(route)) expect(guardRedirect(route, visitor), route).toBe('Login');
  });

  it('keeps an unverified login on Verify (or Login, or an unlock link) only', () => {
    const unverified = { ...visitor, loggedIn: true };
    const open = ALL_ROUTES.filter((route) => guardRedirect(route, unverified) === null);
    expect(open.sort()).toEqual(['Login', 'UnlockLogin', 'Verify']);
  });

  it('forces License while the declared use is empty or not permitted, and nowhere else', () => {
    for (const use of [null, 'patient_care', 'sports_performance_assessment', 'use_in_company'] as const) {
      const state = { ...researcher, institutionalUse: use };
      for (const route of ALL_ROUTES)
        expect(guardRedirect(route, state), `${use} ${route}`).toBe(route === 'License' ? null : 'License');
    }
  });

  it('sends the session-setup steps to ConnectDevices until a session is active', () => {
    expect(redirects(researcher)).toMatchObject({
      Calibration: 'ConnectDevices',
      Neutral: 'ConnectDevices',
      ConnectDevicesForId: 'ConnectDevices',
    });
    const withSession = redirects({ ...researcher, hasActiveSession: true });
    expect(Object.values(withSession).every((redirect) => redirect === null)).toBe(true);
  });

  it('goes to License after verification only when the use needs an answer', () => {
    expect(afterVerification(null)).toBe('License');
    expect(afterVerification('use_in_company')).toBe('License');
    expect(afterVerification('teaching_at_academic')).toBe('SelectSession');
  });
});
