import { OTP_CODE_LENGTH, verifyRequestSchema, type VerifyRequest } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { useResetOtpChallenge, useVerify } from '../../api/account.ts';
import { authStore } from '../../app/auth-store.ts';
import { afterVerification } from '../../app/navigation-guard.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { useLogout } from '../../app/use-logout.ts';
import { AuthCard } from '../../components/AuthCard.tsx';

/** §2.5: the e-mailed code. Entering the page asks for a code unless the login has just sent one (§4.1). */
export function VerifyScreen() {
  const navigate = useNavigate();
  const logout = useLogout();
  const verify = useVerify();
  const { mutate: sendNewCode } = useResetOtpChallenge();
  const challengeAsked = useRef(false);
  const form = useForm<VerifyRequest>({ resolver: zodResolver(verifyRequestSchema), defaultValues: { otp_token: '' } });

  useEffect(() => {
    if (challengeAsked.current) return;
    challengeAsked.current = true;
    if (authStore.get().otpChallengeSent) authStore.update({ otpChallengeSent: false });
    else sendNewCode(undefined, { onError: (error) => reportError(error, 'Could not send a new code.') });
  }, [sendNewCode]);

  const onSubmit = form.handleSubmit(async ({ otp_token }) => {
    const { rememberDevice, institutionalUse } = authStore.get();
    try {
      const answer = await verify.mutateAsync({ otp_token, remember_device: rememberDevice });
      authStore.update({
        verified: true,
        ...(answer.remembered_device_token
          ? { rememberedDeviceToken: answer.remembered_device_token, rememberDeviceAt: Date.now() }
          : {}),
      });
      await navigate(fixedPaths[afterVerification(institutionalUse)]);
    } catch (error) {
      reportError(error, 'Verification failed.', { setError: form.setError, schema: verifyRequestSchema });
    }
  });

  return (
    <AuthCard title="Verify your login">
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <Text size="sm">We sent a {OTP_CODE_LENGTH}-digit code to your e-mail address. Enter it to continue.</Text>
          <TextInput
            label="Verification code"
            inputMode="numeric"
            autoComplete="one-time-code"
            {...form.register('otp_token')}
            error={form.formState.errors.otp_token?.message}
          />
          <Button type="submit" loading={form.formState.isSubmitting}>
            Verify
          </Button>
          <Button variant="subtle" onClick={() => void logout()}>
            Back to Login
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
