import { messages } from '@kinetrace/contracts';
import { Center, Container, Loader, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { useUserInfo } from '../../api/account.ts';
import { useAuth } from '../../app/auth-store.ts';
import { toast } from '../../components/toasts.tsx';
import { ProfileEditForm } from './ProfileEditForm.tsx';
import { ProfileSettings } from './ProfileSettings.tsx';
import { ProfileView } from './ProfileView.tsx';

export type ProfileMode = 'view' | 'edit' | 'settings';

/** §2.19: anyone may view a profile; its owner may also edit it, change the picture and open settings. */
export function ProfileScreen() {
  const { username = '' } = useParams();
  const auth = useAuth();
  const userInfo = useUserInfo(username);
  const [mode, setMode] = useState<ProfileMode>('view');
  const isOwner = auth.token !== null && auth.verified && auth.username === username;

  useEffect(() => {
    if (userInfo.isError) toast.error(messages.userInfoFailure);
  }, [userInfo.isError]);

  let content;
  if (userInfo.isPending) {
    content = (
      <Center>
        <Loader aria-label="Loading profile" />
      </Center>
    );
  } else if (userInfo.isError) {
    content = <Text>{messages.userInfoFailure}</Text>;
  } else if (userInfo.data === null) {
    content = <Text>{messages.userDoesNotExist(username)}</Text>;
  } else if (isOwner && mode === 'edit') {
    content = <ProfileEditForm profile={userInfo.data} onDone={() => setMode('view')} />;
  } else if (isOwner && mode === 'settings') {
    content = <ProfileSettings username={username} onBack={() => setMode('view')} />;
  } else {
    content = <ProfileView profile={userInfo.data} isOwner={isOwner} onModeChange={setMode} />;
  }
  return (
    <Container size="sm" my="xl">
      {content}
    </Container>
  );
}
