import type { ComponentType } from 'react';
import { Navigate, createBrowserRouter } from 'react-router';
import { LoginScreen } from '../screens/Login/LoginScreen.tsx';
import { SelectSessionScreen } from '../screens/SelectSession/SelectSessionScreen.tsx';
import { RootLayout } from './RootLayout.tsx';
import { fixedPaths, type RouteHandle } from './route-names.ts';

const named = (name: RouteHandle['name']): RouteHandle => ({ name });

/**
 * A screen loaded when its route is first visited, in a chunk of its own: the first page (the sign-in page or
 * the session list, the two screens imported above) loads neither the others' code nor the libraries only they
 * use (the 3D viewer, the charts, the uploads, the country list).
 */
const screen =
  <Name extends string>(load: () => Promise<Record<Name, ComponentType>>, name: Name) =>
  async () => ({ Component: (await load())[name] });

/** §2.1 route table (history mode, base /). */
export const router = createBrowserRouter([
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <Navigate to={fixedPaths.SelectSession} replace />, handle: named('SelectSession') },
      { path: fixedPaths.Login, element: <LoginScreen />, handle: named('Login') },
      {
        path: fixedPaths.Verify,
        lazy: screen(() => import('../screens/Verify/VerifyScreen.tsx'), 'VerifyScreen'),
        handle: named('Verify'),
      },
      {
        path: fixedPaths.License,
        lazy: screen(() => import('../screens/License/LicenseScreen.tsx'), 'LicenseScreen'),
        handle: named('License'),
      },
      {
        path: '/:slug',
        lazy: screen(() => import('../screens/Register/RegisterScreen.tsx'), 'RegisterScreen'),
        handle: named('Register'),
      },
      { path: fixedPaths.SelectSession, element: <SelectSessionScreen />, handle: named('SelectSession') },
      {
        path: '/:id/connect-devices',
        lazy: screen(() => import('../screens/ConnectDevices/ConnectDevicesScreen.tsx'), 'ConnectDevicesScreen'),
        handle: named('ConnectDevicesForId'),
      },
      {
        path: fixedPaths.ConnectDevices,
        lazy: screen(() => import('../screens/ConnectDevices/ConnectDevicesScreen.tsx'), 'ConnectDevicesScreen'),
        handle: named('ConnectDevices'),
      },
      {
        path: '/:id/calibration',
        lazy: screen(() => import('../screens/Calibration/CalibrationScreen.tsx'), 'CalibrationScreen'),
        handle: named('Calibration'),
      },
      {
        path: '/:id/neutral',
        lazy: screen(() => import('../screens/Neutral/NeutralScreen.tsx'), 'NeutralScreen'),
        handle: named('Neutral'),
      },
      {
        path: '/session/:id',
        lazy: screen(() => import('../screens/Session/SessionScreen.tsx'), 'SessionScreen'),
        handle: named('Session'),
      },
      {
        path: '/dashboard/:id?',
        lazy: screen(() => import('../screens/Dashboard/DashboardScreen.tsx'), 'DashboardScreen'),
        handle: named('Dashboard'),
      },
      {
        path: '/analysis-dashboard/:id/',
        lazy: screen(
          () => import('../screens/AnalysisDashboard/AnalysisDashboardScreen.tsx'),
          'AnalysisDashboardScreen',
        ),
        handle: named('AnalysisDashboard'),
      },
      {
        path: fixedPaths.ResetPassword,
        lazy: screen(() => import('../screens/ResetPassword/ResetPasswordScreen.tsx'), 'ResetPasswordScreen'),
        handle: named('ResetPassword'),
      },
      {
        path: '/new-password/:token',
        lazy: screen(() => import('../screens/NewPassword/NewPasswordScreen.tsx'), 'NewPasswordScreen'),
        handle: named('NewPassword'),
      },
      {
        path: '/unlock-login/:token',
        lazy: screen(() => import('../screens/UnlockLogin/UnlockLoginScreen.tsx'), 'UnlockLoginScreen'),
        handle: named('UnlockLogin'),
      },
      {
        path: fixedPaths.RecycleBin,
        lazy: screen(() => import('../screens/RecycleBin/RecycleBinScreen.tsx'), 'RecycleBinScreen'),
        handle: named('RecycleBin'),
      },
      {
        path: fixedPaths.Subjects,
        lazy: screen(() => import('../screens/Subjects/SubjectsScreen.tsx'), 'SubjectsScreen'),
        handle: named('Subjects'),
      },
      {
        path: '/profile/:username/',
        lazy: screen(() => import('../screens/Profile/ProfileScreen.tsx'), 'ProfileScreen'),
        handle: named('ProfilePage'),
      },
      // No handle: the guard sends unknown paths to the session list.
      { path: '*', element: null },
    ],
  },
  // The phone's capture page: outside the app shell and its guard, no login (the QR code's token is the credential).
  {
    path: '/capture/:pairingToken',
    lazy: screen(() => import('../screens/Capture/CaptureScreen.tsx'), 'CaptureScreen'),
  },
]);
