import { messages } from '@kinetrace/contracts';
import { Alert, Button, Loader, Stack, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { useUnlockLogin } from '../../api/account.ts';
import { authStore } from '../../app/auth-store.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';

/**
 * The page of a login unlock link (mailed from Login when logins of an account are held back): opening
 * it makes this browser one the account remembers, so its owner logs in whatever passwords others try.
 */
export function UnlockLoginScreen() {
  const { token = '' } = useParams();
  const unlock = useUnlockLogin();
  const opened = useRef(false);

  useEffect(() => {
    // The link works once: it is opened once, whatever React's development mode repeats.
    if (opened.current) return;
    opened.current = true;
    unlock.mutate(token, {
      onSuccess: (answer) =>
        authStore.update({ rememberedDeviceToken: answer.remembered_device_token, rememberDeviceAt: Date.now() }),
    });
  }, [token, unlock]);

  return (
    <AuthCard title="Log in despite the wrong passwords">
      <Stack>
        {unlock.isPending && <Loader aria-label="Opening the link" />}
        {unlock.isSuccess && (
          <>
            <Text>{messages.browserUnlocked(unlock.data.username)}</Text>
            <Button component={Link} to={fixedPaths.Login} state={{ username: unlock.data.username }}>
              Log in
            </Button>
          </>
        )}
        {unlock.isError && (
          <>
            <Alert color="red">{unlock.error.message}</Alert>
            <Button component={Link} to={fixedPaths.Login} variant="default">
              Back to login
            </Button>
          </>
        )}
      </Stack>
    </AuthCard>
  );
}
