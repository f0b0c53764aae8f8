import { Anchor, Button, Checkbox, Paper, Stack, Title } from '@mantine/core';
import { useDisclosure, useLocalStorage } from '@mantine/hooks';
import { DeleteAccountDialog } from './DeleteAccountDialog.tsx';
import { PersonalTokens } from './PersonalTokens.tsx';

/** §2.19 settings mode: the voice feedback preference (local storage, §3), personal API tokens and account deletion. */
export function ProfileSettings({ username, onBack }: { username: string; onBack: () => void }) {
  const [auditoryFeedback, setAuditoryFeedback] = useLocalStorage({ key: 'auditory_feedback', defaultValue: false });
  const [deleteOpened, deleteDialog] = useDisclosure(false);
  return (
    <Paper withBorder p="xl" radius="md">
      <Title order={2} mb="md">
        Settings
      </Title>
      <Stack align="flex-start">
        <Checkbox
          label="Enable Voice Auditory Feedback (audio updates for start and completion events)"
          checked={auditoryFeedback}
          onChange={(event) => setAuditoryFeedback(event.currentTarget.checked)}
        />
        <PersonalTokens />
        <Button color="red" onClick={deleteDialog.open}>
          Delete Account
        </Button>
        <Anchor component="button" type="button" onClick={onBack}>
          Go Back
        </Anchor>
      </Stack>
      <DeleteAccountDialog username={username} opened={deleteOpened} onClose={deleteDialog.close} />
    </Paper>
  );
}
