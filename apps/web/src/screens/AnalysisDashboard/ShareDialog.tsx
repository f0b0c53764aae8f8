import { messages, type Session } from '@kinetrace/contracts';
import { Alert, Button, Modal, Stack, Switch, Text } from '@mantine/core';
import { useState } from 'react';
import { useSubjectShareToken } from '../../api/analyses.ts';
import { useSetSessionPublic } from '../../api/sessions.ts';
import { reportError } from '../../app/report-error.ts';
import { LinkField } from '../../components/LinkField.tsx';
import { analysisDashboardPath } from './dashboard-path.ts';

const MAKE_PUBLIC_ALERT = 'To make your analysis public, you need to make your session public';

/**
 * The owner's share dialog of a trial's analysis (spec §2.13, §2.15): a link with the subject's share
 * token (for people without an account), and a public link, which needs a public session: otherwise
 * the spec's alert with a 'Make session public' button.
 */
export function ShareDialog({
  dashboardId,
  session,
  trialId,
  onClose,
}: {
  dashboardId: number;
  session: Session;
  trialId: string;
  onClose: () => void;
}) {
  const shareToken = useSubjectShareToken(session.subject);
  const setPublic = useSetSessionPublic();
  const [wantsPublic, setWantsPublic] = useState(session.public);
  const absolute = (path: string) => new URL(path, window.location.origin).toString();
  const makeSessionPublic = () =>
    setPublic.mutate(
      { id: session.id, isPublic: true },
      { onError: (error) => reportError(error, 'Could not make the session public.') },
    );
  return (
    <Modal opened onClose={onClose} title="Share this analysis" size="lg">
      <Stack>
        {session.subject !== null && shareToken.data && (
          <LinkField
            label="Link with the subject's share token (anyone holding it reads this subject's analyses)"
            url={absolute(
              analysisDashboardPath(dashboardId, { trialId, subjectId: session.subject, shareToken: shareToken.data }),
            )}
          />
        )}
        {session.subject !== null && shareToken.data === null && (
          <Text size="sm" c="dimmed">
            {messages.shareLinkNone}
          </Text>
        )}
        <Switch
          label="Make this analysis public"
          checked={wantsPublic}
          onChange={(event) => setWantsPublic(event.currentTarget.checked)}
        />
        {wantsPublic &&
          (session.public ? (
            <LinkField label="Public link" url={absolute(analysisDashboardPath(dashboardId, { trialId }))} />
          ) : (
            <Alert color="orange">
              <Text size="sm" mb="xs">
                {MAKE_PUBLIC_ALERT}
              </Text>
              <Button size="xs" onClick={makeSessionPublic} loading={setPublic.isPending}>
                Make session public
              </Button>
            </Alert>
          ))}
      </Stack>
    </Modal>
  );
}
