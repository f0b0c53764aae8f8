import { Button, Group, Modal, Stack, Text } from '@mantine/core';

interface ConfirmDialogProps {
  title: string;
  message: string;
  onConfirm: () => void;
  onClose: () => void;
  confirmLabel?: string;
  cancelLabel?: string;
  busy?: boolean;
  danger?: boolean;
}

/** A yes/no question (§2.17, §2.18 confirmations); shown while mounted. */
export function ConfirmDialog({
  title,
  message,
  onConfirm,
  onClose,
  confirmLabel = 'Yes',
  cancelLabel = 'No',
  busy,
  danger,
}: ConfirmDialogProps) {
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <Stack>
        <Text>{message}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {cancelLabel}
          </Button>
          <Button color={danger ? 'red' : undefined} loading={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
