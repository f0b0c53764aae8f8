import {
  DEFAULT_COUNTRY,
  PASSWORD_MIN_LENGTH,
  messages,
  registerFormSchema,
  registerRequestSchema,
  type RegisterForm,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Anchor, Button, Checkbox, Group, PasswordInput, Stack, TextInput } from '@mantine/core';
import type { ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { useRegister } from '../../api/account.ts';
import { useInstanceInfo } from '../../api/instance.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';
import { ProfileFields } from '../../components/ProfileFields.tsx';
import { toast } from '../../components/toasts.tsx';

function ExternalLink({ href, children }: { href: string | undefined; children: ReactNode }) {
  return href ? (
    <Anchor href={href} target="_blank" rel="noreferrer" inherit>
      {children}
    </Anchor>
  ) : (
    children
  );
}

/** §2.6: sign-up. A created account goes to Login, where the e-mailed code completes the first login. */
export function RegisterScreen() {
  const navigate = useNavigate();
  const register = useRegister();
  const links = useInstanceInfo().data?.links;
  const form = useForm<RegisterForm>({
    resolver: zodResolver(registerFormSchema),
    defaultValues: {
      username: '',
      first_name: '',
      last_name: '',
      email: '',
      country: DEFAULT_COUNTRY,
      institution: '',
      profession: '',
      reason: '',
      website: '',
      password: '',
      confirm_password: '',
      newsletter: true,
    },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      // The request schema keeps the account fields and leaves out the confirmation and agreements.
      await register.mutateAsync(registerRequestSchema.parse(values));
      toast.success(messages.userCreated);
      // The login form opens with the new username filled in.
      await navigate(fixedPaths.Login, { state: { username: values.username } });
    } catch (error) {
      reportError(error, 'Registration failed.', { setError: form.setError, schema: registerFormSchema });
    }
  });

  return (
    <AuthCard title="Create an account" width={640}>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <TextInput
            label="Username"
            withAsterisk
            autoComplete="username"
            {...form.register('username')}
            error={errors.username?.message}
          />
          <ProfileFields form={form} screen="signUp" />
          <PasswordInput
            label="Password"
            description={`At least ${PASSWORD_MIN_LENGTH} characters`}
            withAsterisk
            autoComplete="new-password"
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide password' }}
            {...form.register('password')}
            error={errors.password?.message}
          />
          <PasswordInput
            label="Confirm password"
            withAsterisk
            autoComplete="new-password"
            visibilityToggleButtonProps={{ 'aria-label': 'Show or hide password confirmation' }}
            {...form.register('confirm_password')}
            error={errors.confirm_password?.message}
          />
          <Checkbox label="Sign up to receive our newsletter" {...form.register('newsletter')} />
          <Checkbox
            label={
              <>
                I agree to the <ExternalLink href={links?.terms}>terms of use</ExternalLink>
              </>
            }
            {...form.register('accept_terms')}
            error={errors.accept_terms?.message}
          />
          <Checkbox
            label={
              <>
                I agree to the <ExternalLink href={links?.privacy}>privacy policy</ExternalLink>
              </>
            }
            {...form.register('accept_privacy')}
            error={errors.accept_privacy?.message}
          />
          <Checkbox
            label="I will use this software for non-profit, non-commercial purposes only"
            {...form.register('accept_non_commercial')}
            error={errors.accept_non_commercial?.message}
          />
          <Button type="submit" loading={isSubmitting}>
            Sign up
          </Button>
          <Group justify="center">
            <Anchor component={Link} to={fixedPaths.Login} size="sm">
              Already have an account? Log in
            </Anchor>
          </Group>
        </Stack>
      </form>
    </AuthCard>
  );
}
