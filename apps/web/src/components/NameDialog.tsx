import { Button, Group, Modal, Stack, TextInput } from '@mantine/core';
import type { FormEvent } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** A dialog with one name field and Cancel / Rename: the shell of the session and trial rename dialogs. */
export function NameDialog(props: {
  title: string;
  label: string;
  description?: string;
  field: UseFormRegisterReturn;
  error?: string;
  canSubmit: boolean;
  pending: boolean;
  /** The form's submit handler (react-hook-form's handleSubmit): it reports its own failures. */
  onSubmit: (event: FormEvent<HTMLFormElement>) => Promise<void>;
  onClose: () => void;
}) {
  return (
    <Modal opened onClose={props.onClose} title={props.title} centered>
      <form onSubmit={(event) => void props.onSubmit(event)} noValidate>
        <Stack>
          <TextInput
            label={props.label}
            description={props.description}
            data-autofocus
            {...props.field}
            error={props.error}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!props.canSubmit} loading={props.pending}>
              Rename
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
