import {
  NOT_SELECTED_COUNTRY,
  messages,
  updateProfileRequestSchema,
  type UpdateProfileRequest,
  type UserProfile,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Checkbox, Group, Paper, Stack, TextInput, Textarea, Title } from '@mantine/core';
import { Controller, useForm } from 'react-hook-form';
import { useUpdateProfile } from '../../api/account.ts';
import { reportError } from '../../app/report-error.ts';
import { CountrySelect } from '../../components/CountrySelect.tsx';
import { toast } from '../../components/toasts.tsx';

/** §2.19 edit mode, 'Editing Profile'. */
export function ProfileEditForm({ profile, onDone }: { profile: UserProfile; onDone: () => void }) {
  const updateProfile = useUpdateProfile(profile.username);
  const form = useForm<UpdateProfileRequest>({
    resolver: zodResolver(updateProfileRequestSchema),
    mode: 'onChange',
    defaultValues: {
      first_name: profile.first_name,
      last_name: profile.last_name,
      email: profile.email,
      country: profile.country || NOT_SELECTED_COUNTRY,
      institution: profile.institution,
      profession: profile.profession,
      reason: profile.reason,
      website: profile.website,
      newsletter: profile.newsletter ?? false,
    },
  });
  const { errors, isSubmitted, isValid } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await updateProfile.mutateAsync(values);
      toast.success(messages.profileUpdated);
      onDone();
    } catch (error) {
      reportError(error, `Error ${messages.profileSaveFailureContext}`, {
        setError: form.setError,
        schema: updateProfileRequestSchema,
      });
    }
  });

  return (
    <Paper withBorder p="xl" radius="md">
      <Title order={2} mb="md">
        Editing Profile
      </Title>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <TextInput label="Username" value={profile.username} readOnly variant="filled" />
          <Group grow>
            <TextInput
              label="First name"
              withAsterisk
              {...form.register('first_name')}
              error={errors.first_name?.message}
            />
            <TextInput
              label="Last name"
              withAsterisk
              {...form.register('last_name')}
              error={errors.last_name?.message}
            />
          </Group>
          <TextInput
            label="Email"
            description="Used for two-factor authentication"
            withAsterisk
            type="email"
            {...form.register('email')}
            error={errors.email?.message}
          />
          <Controller
            control={form.control}
            name="country"
            render={({ field, fieldState }) => (
              <CountrySelect value={field.value} onChange={field.onChange} error={fieldState.error?.message} />
            )}
          />
          <TextInput
            label="Institution"
            withAsterisk
            {...form.register('institution')}
            error={errors.institution?.message}
          />
          <TextInput
            label="Profession"
            withAsterisk
            {...form.register('profession')}
            error={errors.profession?.message}
          />
          <Textarea
            label="Reason for use"
            withAsterisk
            autosize
            minRows={2}
            {...form.register('reason')}
            error={errors.reason?.message}
          />
          <TextInput label="Website" {...form.register('website')} error={errors.website?.message} />
          <Checkbox label="Sign up to receive our newsletter" {...form.register('newsletter')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onDone}>
              Discard Changes
            </Button>
            <Button
              type="submit"
              disabled={(isSubmitted && !isValid) || updateProfile.isPending}
              loading={updateProfile.isPending}
            >
              Save Changes
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
