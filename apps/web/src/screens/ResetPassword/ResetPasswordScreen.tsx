import { emailField, messages } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Anchor, Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { z } from 'zod';
import { useResetPassword } from '../../api/account.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';
import { toast } from '../../components/toasts.tsx';

/** The page's own form: the e-mail only; the page origin is added to the request by the hook. */
const resetPasswordFormSchema = z.object({ email: emailField });
type ResetPasswordForm = z.input<typeof resetPasswordFormSchema>;

/** §2.16: asks for a password-reset link by e-mail. */
export function ResetPasswordScreen() {
  const navigate = useNavigate();
  const resetPassword = useResetPassword();
  const form = useForm<ResetPasswordForm>({
    resolver: zodResolver(resetPasswordFormSchema),
    defaultValues: { email: '' },
  });

  const onSubmit = form.handleSubmit(async ({ email }) => {
    try {
      await resetPassword.mutateAsync(email);
      toast.success(messages.passwordRecoveryEmailSent);
      await navigate(fixedPaths.Login);
    } catch (error) {
      reportError(error, 'Could not send the recovery e-mail.', {
        setError: form.setError,
        schema: resetPasswordFormSchema,
      });
    }
  });

  return (
    <AuthCard title="Reset your password">
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <Text size="sm">
            Enter the e-mail address of your account and we will send you a link to choose a new password.
          </Text>
          <TextInput
            label="E-mail"
            type="email"
            autoComplete="email"
            {...form.register('email')}
            error={form.formState.errors.email?.message}
          />
          <Button type="submit" loading={form.formState.isSubmitting}>
            Send recovery e-mail
          </Button>
          <Group justify="center">
            <Anchor component={Link} to={fixedPaths.Login} size="sm">
              Back to Login
            </Anchor>
          </Group>
        </Stack>
      </form>
    </AuthCard>
  );
}
