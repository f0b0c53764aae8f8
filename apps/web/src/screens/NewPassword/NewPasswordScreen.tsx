import { PASSWORD_MIN_LENGTH, messages, newPasswordFormSchema } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, PasswordInput, Stack } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { useNavigate, useParams } from 'react-router';
import type { z } from 'zod';
import { useNewPassword } from '../../api/account.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';
import { toast } from '../../components/toasts.tsx';

type NewPasswordForm = z.input<typeof newPasswordFormSchema>;

/** §2.16: the page the reset e-mail links to; the token is the last path segment. */
export function NewPasswordScreen() {
  const navigate = useNavigate();
  const { token = '' } = useParams();
  const newPassword = useNewPassword();
  const form = useForm<NewPasswordForm>({
    resolver: zodResolver(newPasswordFormSchema),
    defaultValues: { password: '', confirm_password: '' },
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      await newPassword.mutateAsync({ token, password });
      toast.success(messages.passwordChanged);
      await navigate(fixedPaths.Login);
    } catch (error) {
      reportError(error, 'Could not change the password.', { setError: form.setError, schema: newPasswordFormSchema });
    }
  });

  return (
    <AuthCard title="Choose a new password">
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <PasswordInput
            label="New password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            autoComplete="new-password"
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide password' }}
            {...form.register('password')}
            error={errors.password?.message}
          />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide password confirmation' }}
            {...form.register('confirm_password')}
            error={errors.confirm_password?.message}
          />
          <Button type="submit" loading={form.formState.isSubmitting}>
            Change password
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
