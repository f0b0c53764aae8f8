import { TOAST_DURATION_MS } from '@kinetrace/contracts';
import { Button, Group, Text } from '@mantine/core';
import { notifications, type NotificationData } from '@mantine/notifications';

type NotificationPosition = NonNullable<NotificationData['position']>;

/**
 * §8 toast behaviour: errors and successes stay 10 s at the bottom centre; warnings stay until dismissed,
 * top right; info toasts stay until dismissed unless given a duration (§9 notices). Every toast has a Close action.
 */
function showToast(message: string, options: { color: string; autoClose: number | false; position: NotificationPosition }): void {
  const id = crypto.randomUUID();
  notifications.show({
    id,
    color: options.color,
    autoClose: options.autoClose,
    position: options.position,
    withCloseButton: false,
    message: (
      <Group justify="space-between" wrap="nowrap" gap="sm">
        <Text size="sm" flex={1} data-testid="toast-message">
          {message}
        </Text>
        <Button variant="subtle" size="compact-sm" color={options.color} style={{ flexShrink: 0 }} onClick={() => notifications.hide(id)}>
          Close
        </Button>
      </Group>
    ),
  });
}

export const toast = {
  error: (message: string, autoClose: number = TOAST_DURATION_MS.error) =>
    showToast(message, { color: 'red', autoClose, position: 'bottom-center' }),
  success: (message: string, autoClose: number = TOAST_DURATION_MS.success) =>
    showToast(message, { color: 'teal', autoClose, position: 'bottom-center' }),
  warning: (message: string) => showToast(message, { color: 'yellow', autoClose: false, position: 'top-right' }),
  info: (message: string, autoClose: number | false = false) => showToast(message, { color: 'blue', autoClose, position: 'bottom-center' }),
};
