import { AppShell, Center, Loader } from '@mantine/core';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useMatches, useParams } from 'react-router';
import { useActiveSessionId, useSessionOfAddress } from './active-session.ts';
import { AppHeader } from './AppHeader.tsx';
import { authStore, useAuth } from './auth-store.ts';
import { guardRedirect, needsActiveSession } from './navigation-guard.ts';
import { fixedPaths, type RouteHandle, type RouteName } from './route-names.ts';
import { useLogout } from './use-logout.ts';
import { useToastsStayOnTheirScreen } from '../components/toasts.tsx';

/** The name of the route being shown, or null for a path the app does not know. */
function useRouteName(): RouteName | null {
  const matches = useMatches();
  const params = useParams();
  const handle = matches.at(-1)?.handle as RouteHandle | undefined;
  if (!handle) return null;
  // React Router matches whole segments only, so `/register-<suffix>` is a `/:slug` route checked here.
  if (handle.name === 'Register' && !params.slug?.startsWith('register-')) return null;
  return handle.name;
}

/** Restarts the 12-hour login timer on each route change and logs out when it runs out (§4.1, §9). */
function useSessionExpiry(): void {
  const location = useLocation();
  const { token, validTill } = useAuth();
  const logout = useLogout();
  useEffect(() => authStore.touch(), [location.key]);
  useEffect(() => {
    if (!token || validTill === null) return;
    const timer = setTimeout(
      () => {
        // A route change may have restarted the 12 hours after this timer fell due but before it was replaced.
        const current = authStore.get().validTill;
        if (current !== null && current <= Date.now()) void logout();
      },
      Math.max(0, validTill - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [token, validTill, logout]);
}

/** Every page: the navigation guard (§2.2), then the app shell (§2.3) around the screen. */
export function RootLayout() {
  const auth = useAuth();
  const activeSessionId = useActiveSessionId();
  const routeName = useRouteName();
  const { id } = useParams();
  useSessionExpiry();
  useToastsStayOnTheirScreen();
  const signedIn = auth.token !== null && auth.verified;
  const addressSession = useSessionOfAddress(
    signedIn && routeName !== null && needsActiveSession(routeName) ? (id ?? null) : null,
  );

  if (routeName === null) return <Navigate to={fixedPaths.SelectSession} replace />;
  if (addressSession === 'loading') {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading the session" />
      </Center>
    );
  }
  const redirect = guardRedirect(routeName, {
    loggedIn: auth.token !== null,
    verified: auth.verified,
    institutionalUse: auth.institutionalUse,
    hasActiveSession: addressSession === null ? activeSessionId !== null : addressSession === 'active',
  });
  if (redirect) return <Navigate to={fixedPaths[redirect]} replace />;

  return (
    <AppShell header={{ height: 60 }} padding="md">
      <AppShell.Header>
        <AppHeader routeName={routeName} />
      </AppShell.Header>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
