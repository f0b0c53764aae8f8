import { deleteAccountRequestSchema, messages } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { useDeleteAccount } from '../../api/account.ts';
import { reportError } from '../../app/report-error.ts';
import { useLogout } from '../../app/use-logout.ts';
import { toast } from '../../components/toasts.tsx';

type DeleteAccountForm = z.input<typeof deleteAccountRequestSchema>;

/** §2.19 delete-account popup: the user types their username to confirm; success logs them out. */
export function DeleteAccountDialog({
  username,
  opened,
  onClose,
}: {
  username: string;
  opened: boolean;
  onClose: () => void;
}) {
  const deleteAccount = useDeleteAccount();
  const logout = useLogout();
  const schema = useMemo(
    () =>
      deleteAccountRequestSchema.refine((form) => form.confirm === username, {
        message: messages.deleteConfirmMismatch,
        path: ['confirm'],
      }),
    [username],
  );
  const form = useForm<DeleteAccountForm>({ resolver: zodResolver(schema), defaultValues: { confirm: '' } });

  const close = () => {
    form.reset();
    onClose();
  };

  const onSubmit = form.handleSubmit(async ({ confirm }) => {
    try {
      const answer = await deleteAccount.mutateAsync(confirm);
      toast.success(answer.message);
      await logout();
    } catch (error) {
      reportError(error, 'Could not delete the account.', { setError: form.setError, schema: schema });
    }
  });

  return (
    <Modal opened={opened} onClose={close} title="Delete Account">
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <Text>
            This action is permanent and irreversible. It removes your account and all your sessions, trials, subjects
            and results.
          </Text>
          <TextInput
            label={`Type your username (${username}) to confirm`}
            autoComplete="off"
            {...form.register('confirm')}
            error={form.formState.errors.confirm?.message}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Do not remove my account
            </Button>
            <Button type="submit" color="red" loading={form.formState.isSubmitting}>
              Delete Account
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
