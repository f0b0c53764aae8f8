import type { Session } from '@kinetrace/contracts';
import { Stack, Switch } from '@mantine/core';
import { useSetSessionPublic } from '../../api/sessions.ts';
import { reportError } from '../../app/report-error.ts';
import { sessionPath } from '../../app/route-names.ts';
import { LinkField } from '../../components/LinkField.tsx';

/**
 * The owner's public/private toggle (§2.13, §4.4): a public session, and its analyses, can be read by anyone
 * holding its link, which is shown to copy while it is public. What readers get is the data-sharing choice's
 * (docs/data-sharing.md).
 */
export function SessionSharing({ session }: { session: Session }) {
  const setPublic = useSetSessionPublic();
  const toggle = (isPublic: boolean) =>
    setPublic.mutate(
      { id: session.id, isPublic },
      {
        onError: (error) =>
          reportError(error, isPublic ? 'Could not make the session public.' : 'Could not make the session private.'),
      },
    );
  return (
    <Stack gap="xs" maw={640} data-testid="session-sharing">
      <Switch
        label="Public session"
        description="Anyone with the link can view this session and its analyses, as far as the subject's data-sharing choice allows."
        checked={session.public}
        disabled={setPublic.isPending}
        onChange={(event) => toggle(event.currentTarget.checked)}
      />
      {session.public && (
        <LinkField label="Public link" url={new URL(sessionPath(session.id), window.location.origin).toString()} />
      )}
    </Stack>
  );
}
