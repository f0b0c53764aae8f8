import './toasts.css';
import { TOAST_DURATION_MS } from '@kinetrace/contracts';
import { Button, Group, Text } from '@mantine/core';
import { Notifications, notifications, type NotificationData } from '@mantine/notifications';
import { useEffect } from 'react';
import { NavigationType, useLocation, useNavigationType } from 'react-router';

type NotificationPosition = NonNullable<NotificationData['position']>;

/** Where each toast on screen was shown, and whether it is news for the next screen (a success announced before navigating). */
const shownToasts = new Map<string, { path: string; forNextScreen: boolean }>();

/**
 * §8 toast behaviour: errors and successes stay 10 s at the bottom centre; warnings stay until dismissed,
 * top right; info toasts stay until dismissed unless given a duration (§9 notices). Every toast has a Close action.
 * A toast is keyed by its colour and text, so the same message shown again does not stack a second copy.
 */
function showToast(
  message: string,
  options: { color: string; autoClose: number | false; position: NotificationPosition },
): void {
  const id = `${options.color}:${message}`;
  // Shown again, a toast belongs to the screen that shows it now.
  shownToasts.set(id, { path: window.location.pathname, forNextScreen: options.color === 'teal' });
  notifications.show({
    id,
    color: options.color,
    autoClose: options.autoClose,
    position: options.position,
    withCloseButton: false,
    onClose: () => shownToasts.delete(id),
    message: (
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Text size="sm" flex={1} data-testid="toast-message">
          {message}
        </Text>
        <Button
          variant="subtle"
          size="compact-sm"
          color={options.color}
          style={{ flexShrink: 0 }}
          onClick={() => notifications.hide(id)}
        >
          Close
        </Button>
      </Group>
    ),
  });
}

/** Where the toasts appear (mounted once, above the router). */
export function ToastArea() {
  return <Notifications position="bottom-center" classNames={{ root: 'toasts-root' }} />;
}

/**
 * Toasts do not follow the user across screens: on a route change those shown on another screen go, except a
 * success announced just before navigating (e.g. 'N devices calibrated successfully.'), which gets this one screen.
 * A redirect (a replace, such as a new session's step moving to its own address) is the same screen: its toasts stay.
 */
export function useToastsStayOnTheirScreen(): void {
  const { pathname } = useLocation();
  const navigationType = useNavigationType();
  useEffect(() => {
    for (const [id, shown] of shownToasts) {
      if (shown.path === pathname) continue;
      if (navigationType === NavigationType.Replace) shownToasts.set(id, { ...shown, path: pathname });
      else if (shown.forNextScreen) shownToasts.set(id, { path: pathname, forNextScreen: false });
      else notifications.hide(id);
    }
  }, [pathname, navigationType]);
}

export const toast = {
  error: (message: string, autoClose: number = TOAST_DURATION_MS.error) =>
    showToast(message, { color: 'red', autoClose, position: 'bottom-center' }),
  success: (message: string, autoClose: number = TOAST_DURATION_MS.success) =>
    showToast(message, { color: 'teal', autoClose, position: 'bottom-center' }),
  warning: (message: string) => showToast(message, { color: 'yellow', autoClose: false, position: 'top-right' }),
  info: (message: string, autoClose: number | false = false) =>
    showToast(message, { color: 'blue', autoClose, position: 'bottom-center' }),
};
