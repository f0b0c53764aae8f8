import {
  NOT_SELECTED_COUNTRY,
  messages,
  updateProfileRequestSchema,
  type UpdateProfileRequest,
  type UserProfile,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Checkbox, Group, Paper, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { useUpdateProfile } from '../../api/account.ts';
import { reportError } from '../../app/report-error.ts';
import { ProfileFields } from '../../components/ProfileFields.tsx';
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
  const { isSubmitted, isValid } = form.formState;

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
          <ProfileFields form={form} screen="profile" />
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
