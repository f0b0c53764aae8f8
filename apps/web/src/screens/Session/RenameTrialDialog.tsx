import { RESERVED_TRIAL_NAMES, messages, renameTrialRequestSchema, type Trial } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { useRenameTrial } from '../../api/trials.ts';
import { reportError } from '../../app/report-error.ts';
import { NameDialog } from '../../components/NameDialog.tsx';

type RenameTrialForm = z.input<typeof renameTrialRequestSchema>;

/**
 * §2.13/§5 trial rename: the trial-name characters, not a reserved name, and unique_trial_name (no other trial
 * of the session has it; the trial's own current name is allowed).
 */
export function RenameTrialDialog({
  trial,
  sessionTrials,
  onClose,
}: {
  trial: Trial;
  sessionTrials: readonly Trial[];
  onClose: () => void;
}) {
  const rename = useRenameTrial();
  const schema = useMemo(() => {
    const otherNames = new Set(sessionTrials.filter((other) => other.id !== trial.id).map((other) => other.name));
    return renameTrialRequestSchema.superRefine(({ trialNewName }, ctx) => {
      const name = trialNewName.trim();
      if ((RESERVED_TRIAL_NAMES as readonly string[]).includes(name) && name !== trial.name) {
        ctx.addIssue({ code: 'custom', path: ['trialNewName'], message: messages.trialNameReserved });
      } else if (otherNames.has(name)) {
        ctx.addIssue({ code: 'custom', path: ['trialNewName'], message: messages.uniqueTrialName });
      }
    });
  }, [sessionTrials, trial]);
  const form = useForm<RenameTrialForm>({
    resolver: zodResolver(schema),
    mode: 'onChange',
    defaultValues: { trialNewName: trial.name },
  });

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await rename.mutateAsync({ id: trial.id, trialNewName: values.trialNewName });
      onClose();
    } catch (error) {
      reportError(error, 'Could not rename the trial.', { setError: form.setError, schema: schema });
    }
  });

  return (
    <NameDialog
      title="Rename trial"
      label="Trial name"
      field={form.register('trialNewName')}
      error={form.formState.errors.trialNewName?.message}
      canSubmit={form.formState.isValid}
      pending={rename.isPending}
      onSubmit={onSubmit}
      onClose={onClose}
    />
  );
}
