import { Center, Loader } from '@mantine/core';
import { useEffect, useState, type ReactNode } from 'react';
import { useMe } from '../api/account.ts';
import { authStore } from './auth-store.ts';

/**
 * §2.2: the stored token is checked before the app is shown, once at start-up. An expired login is dropped
 * at once; a token the server no longer knows answers 401, which clears it (api-client); a live one
 * refreshes who the user is and whether they are verified.
 */
export function StartupCheck({ children }: { children: ReactNode }) {
  const [checking, setChecking] = useState(() => {
    const { token, validTill } = authStore.get();
    if (token === null) return false;
    if (validTill === null || validTill <= Date.now()) {
      authStore.loggedOut();
      return false;
    }
    return true;
  });
  const me = useMe(checking);
  useEffect(() => {
    if (!checking || me.isPending) return;
    if (me.data) {
      authStore.update({
        userId: me.data.user_id,
        username: me.data.username,
        verified: me.data.verified,
        institutionalUse: me.data.institutional_use,
        profilePicture: me.data.profile_picture,
      });
    }
    setChecking(false);
  }, [checking, me.isPending, me.data]);

  if (checking) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  return children;
}
