import { loginRequestSchema, messages, type LoginRequest } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Button, Checkbox, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import { checkOtpVerified, useLogin, useSendUnlockLink } from '../../api/account.ts';
import { useInstanceInfo } from '../../api/instance.ts';
import { authStore, useAuth, validRememberedDeviceToken } from '../../app/auth-store.ts';
import { ApiError } from '../../app/api-client.ts';
import { afterVerification } from '../../app/navigation-guard.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';
import { toast } from '../../components/toasts.tsx';

/**
 * §2.4 and §4.1: after a login the user enters the e-mailed code on Verify, unless this device was
 * remembered less than 90 days ago and the server confirms the login is verified by it. When the server
 * holds logins back (many wrong passwords), the owner can ask for a link that lets this browser in.
 */
export function LoginScreen() {
  const navigate = useNavigate();
  const auth = useAuth();
  const rememberedDeviceToken = validRememberedDeviceToken(auth);
  const [rememberDevice, setRememberDevice] = useState(false);
  const [heldBack, setHeldBack] = useState(false);
  const login = useLogin();
  const sendUnlockLink = useSendUnlockLink();
  const instance = useInstanceInfo();
  const location = useLocation();
  // Sign-up sends the new account's username along (Register screen).
  const registeredUsername: unknown = (location.state as { username?: unknown } | null)?.username;
  const form = useForm<LoginRequest>({
    resolver: zodResolver(loginRequestSchema),
    defaultValues: { username: typeof registeredUsername === 'string' ? registeredUsername : '', password: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit(async (credentials) => {
    try {
      const answer = await login.mutateAsync({ credentials, rememberedDeviceToken });
      authStore.loggedIn({
        token: answer.token,
        userId: answer.user_id,
        username: credentials.username,
        institutionalUse: answer.institutional_use,
        otpChallengeSent: answer.otp_challenge_sent,
        rememberDevice,
      });
      // A code sent despite the stamp: the server no longer knows this device for the account (a new
      // password forgets remembered devices), so the stamp goes and the checkbox is offered again.
      if (rememberedDeviceToken && answer.otp_challenge_sent)
        authStore.update({ rememberedDeviceToken: null, rememberDeviceAt: null });
      if (rememberedDeviceToken && !answer.otp_challenge_sent) {
        const { otp_verified } = await checkOtpVerified(rememberedDeviceToken);
        if (otp_verified) {
          authStore.update({ verified: true });
          await navigate(fixedPaths[afterVerification(answer.institutional_use)]);
          return;
        }
      }
      await navigate(fixedPaths.Verify);
    } catch (error) {
      setHeldBack(error instanceof ApiError && error.status === 429);
      reportError(error, 'Login failed.', { setError: form.setError, schema: loginRequestSchema });
    }
  });
  const askForUnlockLink = () =>
    sendUnlockLink.mutate(form.getValues('username'), {
      onSuccess: (answer) => toast.success(answer.message),
      onError: (error) => reportError(error, 'Could not send the unlock link.'),
    });

  const links = instance.data?.links;
  return (
    <AuthCard title="Log in">
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <TextInput
            label="Username"
            autoComplete="username"
            {...form.register('username')}
            error={errors.username?.message}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide password' }}
            {...form.register('password')}
            error={errors.password?.message}
          />
          {!rememberedDeviceToken && (
            <Checkbox
              label="Remember this device for 90 days"
              checked={rememberDevice}
              onChange={(event) => setRememberDevice(event.currentTarget.checked)}
            />
          )}
          <Button type="submit" loading={form.formState.isSubmitting}>
            Login
          </Button>
          {heldBack && (
            <Alert color="yellow" title="Logins are held back">
              <Text size="sm" mb="xs">
                {messages.loginHeldBack}
              </Text>
              <Button size="xs" variant="default" onClick={askForUnlockLink} loading={sendUnlockLink.isPending}>
                E-mail me an unlock link
              </Button>
            </Alert>
          )}
          <Group justify="space-between">
            <Anchor component={Link} to={fixedPaths.ResetPassword} size="sm">
              Forgot password?
            </Anchor>
            <Anchor component={Link} to={fixedPaths.Register} size="sm">
              Sign up
            </Anchor>
          </Group>
          {links && (
            <Group justify="space-between">
              <Anchor href={links.get_started} target="_blank" rel="noreferrer" size="sm">
                Get started
              </Anchor>
              <Anchor href={links.best_practices} target="_blank" rel="noreferrer" size="sm">
                Best practices
              </Anchor>
            </Group>
          )}
        </Stack>
      </form>
    </AuthCard>
  );
}
