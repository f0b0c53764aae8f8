import { messages, renameSessionRequestSchema } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { useRenameSession } from '../../api/sessions.ts';
import { reportError } from '../../app/report-error.ts';
import { NameDialog } from '../../components/NameDialog.tsx';

type RenameSessionForm = z.input<typeof renameSessionRequestSchema>;

/** §2.8 rename: the session-name character rule, with its hint under the field. */
export function RenameSessionDialog({
  session,
  onClose,
}: {
  session: { id: string; sessionName: string };
  onClose: () => void;
}) {
  const rename = useRenameSession();
  const form = useForm<RenameSessionForm>({
    resolver: zodResolver(renameSessionRequestSchema),
    mode: 'onChange',
    defaultValues: { sessionNewName: session.sessionName },
  });

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await rename.mutateAsync({ id: session.id, sessionNewName: values.sessionNewName });
      onClose();
    } catch (error) {
      reportError(error, 'Could not rename the session.', {
        setError: form.setError,
        schema: renameSessionRequestSchema,
      });
    }
  });

  return (
    <NameDialog
      title="Rename session"
      label="Session name"
      description={messages.sessionRenameHint}
      field={form.register('sessionNewName')}
      error={form.formState.errors.sessionNewName?.message}
      canSubmit={form.formState.isValid}
      pending={rename.isPending}
      onSubmit={onSubmit}
      onClose={onClose}
    />
  );
}
