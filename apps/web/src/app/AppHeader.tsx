import { Anchor, Avatar, Button, Group, Image, Menu, Modal, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, useParams } from 'react-router';
import { useUserInfo } from '../api/account.ts';
import { useInstanceInfo } from '../api/instance.ts';
import { useSession } from '../api/sessions.ts';
import { DEFAULT_PROFILE_PICTURE } from '../components/ProfilePicture.tsx';
import { SessionQrCode } from '../screens/ConnectDevices/SessionQrCode.tsx';
import { useAuth } from './auth-store.ts';
import { fixedPaths, profilePath, type RouteName } from './route-names.ts';
import { useLogout } from './use-logout.ts';

/** Screens where a phone may have dropped out of the session and needs the QR code again (§2.3). */
const RECONNECT_ROUTES: ReadonlySet<RouteName> = new Set(['Calibration', 'Neutral', 'Session']);

function Logo({ asLink }: { asLink: boolean }) {
  const logo = (
    <Group gap="xs" wrap="nowrap">
      <Image src="/kinetrace-logo.svg" alt="" w={32} h={32} />
      <Text fw={700} size="lg">
        Kinetrace
      </Text>
    </Group>
  );
  return asLink ? (
    <Anchor
      component={Link}
      to={fixedPaths.SelectSession}
      underline="never"
      c="inherit"
      aria-label="Kinetrace: your sessions"
    >
      {logo}
    </Anchor>
  ) : (
    logo
  );
}

/** Pairs a phone with the session again: the session's owner only (a visitor of a public session pairs nothing). */
function ReconnectPhoneButton() {
  // Calibration, Neutral and Session all carry the session's id.
  const { id: sessionId } = useParams();
  const session = useSession(sessionId ?? null);
  const [opened, { open, close }] = useDisclosure(false);
  if (!session.data?.is_owner) return null;
  return (
    <>
      <Button variant="light" onClick={open}>
        Reconnect phone
      </Button>
      <Modal opened={opened} onClose={close} title="Reconnect phone">
        <Stack align="center">
          <Text>Scan the session's QR code with the phone's camera app to connect it again.</Text>
          {opened && sessionId && <SessionQrCode sessionId={sessionId} />}
        </Stack>
      </Modal>
    </>
  );
}

function ProfileMenu({ username, storedPicture }: { username: string; storedPicture: string | null }) {
  const logout = useLogout();
  const instance = useInstanceInfo();
  // The live profile shows a picture changed in this or another tab; the stored one shows until it loads.
  const profilePicture = useUserInfo(username).data?.profile_picture ?? storedPicture;
  const links = instance.data?.links;
  const externalLinks: [string, string | undefined][] = [
    ['Forum', links?.forum],
    ['Source code', links?.source_code],
    ['Data-processing code', links?.processing_code],
    ['Best practices', links?.best_practices],
    ['FAQ', links?.faq],
    ['Terms', links?.terms],
    ['Data privacy', links?.privacy],
    ['Report a bug', links?.bug_report],
  ];
  return (
    <Menu position="bottom-end" width={240}>
      <Menu.Target>
        <UnstyledButton aria-label="Profile menu">
          <Avatar src={profilePicture ?? DEFAULT_PROFILE_PICTURE} alt={username} radius="xl" />
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={fixedPaths.SelectSession}>
          <Text size="xs" c="dimmed">
            Signed in as
          </Text>
          <Text size="sm" fw={600}>
            {username}
          </Text>
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item component={Link} to={profilePath(username)}>
          Your Profile
        </Menu.Item>
        <Menu.Item component={Link} to={fixedPaths.SelectSession}>
          Your Sessions
        </Menu.Item>
        <Menu.Divider />
        {externalLinks.map(([label, href]) =>
          href ? (
            <Menu.Item key={label} component="a" href={href} target="_blank" rel="noreferrer">
              {label}
            </Menu.Item>
          ) : null,
        )}
        <Menu.Divider />
        <Menu.Item onClick={() => void logout()}>Logout</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** §2.3: logo, the Reconnect phone button where it applies, and the profile menu once verified. */
export function AppHeader({ routeName }: { routeName: RouteName }) {
  const auth = useAuth();
  const signedInAs = auth.token !== null && auth.verified ? auth.username : null;
  return (
    <Group h="100%" px="md" justify="space-between">
      <Logo asLink={signedInAs !== null && routeName !== 'SelectSession'} />
      <Group>
        {signedInAs !== null && RECONNECT_ROUTES.has(routeName) && <ReconnectPhoneButton />}
        {signedInAs !== null && <ProfileMenu username={signedInAs} storedPicture={auth.profilePicture} />}
      </Group>
    </Group>
  );
}
