import { Navigate, createBrowserRouter } from 'react-router';
import { CalibrationScreen } from '../screens/Calibration/CalibrationScreen.tsx';
import { CaptureScreen } from '../screens/Capture/CaptureScreen.tsx';
import { ConnectDevicesScreen } from '../screens/ConnectDevices/ConnectDevicesScreen.tsx';
import { LicenseScreen } from '../screens/License/LicenseScreen.tsx';
import { LoginScreen } from '../screens/Login/LoginScreen.tsx';
import { NeutralScreen } from '../screens/Neutral/NeutralScreen.tsx';
import { NewPasswordScreen } from '../screens/NewPassword/NewPasswordScreen.tsx';
import { ProfileScreen } from '../screens/Profile/ProfileScreen.tsx';
import { RecycleBinScreen } from '../screens/RecycleBin/RecycleBinScreen.tsx';
import { SessionScreen } from '../screens/Session/SessionScreen.tsx';
import { SubjectsScreen } from '../screens/Subjects/SubjectsScreen.tsx';
import { UnlockLoginScreen } from '../screens/UnlockLogin/UnlockLoginScreen.tsx';
import { RegisterScreen } from '../screens/Register/RegisterScreen.tsx';
import { ResetPasswordScreen } from '../screens/ResetPassword/ResetPasswordScreen.tsx';
import { SelectSessionScreen } from '../screens/SelectSession/SelectSessionScreen.tsx';
import { VerifyScreen } from '../screens/Verify/VerifyScreen.tsx';
import { RootLayout } from './RootLayout.tsx';
import { fixedPaths, type RouteHandle } from './route-names.ts';

const named = (name: RouteHandle['name']): RouteHandle => ({ name });

/** §2.1 route table (history mode, base /). */
export const router = createBrowserRouter([
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <Navigate to={fixedPaths.SelectSession} replace />, handle: named('SelectSession') },
      { path: fixedPaths.Login, element: <LoginScreen />, handle: named('Login') },
      { path: fixedPaths.Verify, element: <VerifyScreen />, handle: named('Verify') },
      { path: fixedPaths.License, element: <LicenseScreen />, handle: named('License') },
      { path: '/:slug', element: <RegisterScreen />, handle: named('Register') },
      { path: fixedPaths.SelectSession, element: <SelectSessionScreen />, handle: named('SelectSession') },
      { path: '/:id/connect-devices', element: <ConnectDevicesScreen />, handle: named('ConnectDevicesForId') },
      { path: fixedPaths.ConnectDevices, element: <ConnectDevicesScreen />, handle: named('ConnectDevices') },
      { path: '/:id/calibration', element: <CalibrationScreen />, handle: named('Calibration') },
      { path: '/:id/neutral', element: <NeutralScreen />, handle: named('Neutral') },
      { path: '/session/:id', element: <SessionScreen />, handle: named('Session') },
      {
        path: '/dashboard/:id?',
        // The chart library loads with the page that uses it.
        lazy: async () => ({ Component: (await import('../screens/Dashboard/DashboardScreen.tsx')).DashboardScreen }),
        handle: named('Dashboard'),
      },
      {
        path: '/analysis-dashboard/:id/',
        lazy: async () => ({
          Component: (await import('../screens/AnalysisDashboard/AnalysisDashboardScreen.tsx')).AnalysisDashboardScreen,
        }),
        handle: named('AnalysisDashboard'),
      },
      { path: fixedPaths.ResetPassword, element: <ResetPasswordScreen />, handle: named('ResetPassword') },
      { path: '/new-password/:token', element: <NewPasswordScreen />, handle: named('NewPassword') },
      { path: '/unlock-login/:token', element: <UnlockLoginScreen />, handle: named('UnlockLogin') },
      { path: fixedPaths.RecycleBin, element: <RecycleBinScreen />, handle: named('RecycleBin') },
      { path: fixedPaths.Subjects, element: <SubjectsScreen />, handle: named('Subjects') },
      { path: '/profile/:username/', element: <ProfileScreen />, handle: named('ProfilePage') },
      // No handle: the guard sends unknown paths to the session list.
      { path: '*', element: null },
    ],
  },
  // The phone's capture page: outside the app shell and its guard, no login (the QR code's token is the credential).
  { path: '/capture/:pairingToken', element: <CaptureScreen /> },
]);
