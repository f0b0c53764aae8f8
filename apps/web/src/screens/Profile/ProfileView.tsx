import { messages, type UserProfile } from '@kinetrace/contracts';
import { Anchor, Button, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { profilePath } from '../../app/route-names.ts';
import { ProfilePicture } from '../../components/ProfilePicture.tsx';
import { toast } from '../../components/toasts.tsx';
import type { ProfileMode } from './ProfileScreen.tsx';
import { UploadImageDialog } from './UploadImageDialog.tsx';

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text>{children}</Text>
    </div>
  );
}

async function copyProfileUrl(username: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(`${window.location.origin}${profilePath(username)}`);
    toast.success(messages.profileUrlCopied);
  } catch {
    toast.error(messages.copyProfileUrlFailure);
  }
}

/** The profile as people read it: optional facts only when present; the owner's buttons (§2.19). */
export function ProfileView({
  profile,
  isOwner,
  onModeChange,
}: {
  profile: UserProfile;
  isOwner: boolean;
  onModeChange: (mode: ProfileMode) => void;
}) {
  const [uploadOpened, upload] = useDisclosure(false);
  const fullName = `${profile.first_name} ${profile.last_name}`.trim();
  const website = profile.personalWebsite || profile.website;
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="xs" mb="lg">
        <ProfilePicture src={profile.profile_picture} alt={`Profile picture of ${profile.username}`} size={128} />
        <UnstyledButton onClick={() => void copyProfileUrl(profile.username)} title="Copy the profile URL">
          <Title order={2}>{profile.username}</Title>
        </UnstyledButton>
        {profile.institution && <Text c="dimmed">{profile.institution}</Text>}
        {profile.email && (
          <Anchor href={`mailto:${profile.email}`} size="sm">
            Contact
          </Anchor>
        )}
      </Stack>
      <Stack gap="sm">
        <Field label="Full Name">{fullName}</Field>
        {profile.profession && <Field label="Profession">{profile.profession}</Field>}
        {website && (
          <Field label="Personal Website">
            <Anchor href={website.includes('://') ? website : `https://${website}`} target="_blank" rel="noreferrer">
              {website}
            </Anchor>
          </Field>
        )}
        {profile.reason && <Field label="Reason of use">{profile.reason}</Field>}
        {profile.country && <Field label="Country">{profile.country}</Field>}
      </Stack>
      {isOwner && (
        <Group justify="center" mt="xl">
          <Button variant="default" onClick={upload.open}>
            Change image
          </Button>
          <Button onClick={() => onModeChange('edit')}>Edit Profile</Button>
          <Button variant="default" onClick={() => onModeChange('settings')}>
            Settings
          </Button>
        </Group>
      )}
      {isOwner && <UploadImageDialog username={profile.username} opened={uploadOpened} onClose={upload.close} />}
    </Paper>
  );
}
