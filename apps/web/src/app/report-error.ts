import { errorText, fieldErrorsSchema } from '@kinetrace/contracts';
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { toast } from '../components/toasts.tsx';
import { ApiError } from './api-client.ts';

interface FormTarget<Form extends FieldValues> {
  setError: UseFormSetError<Form>;
  /** The form's zod object schema: a 400's messages for its fields go on them, the rest to the toast. */
  schema: { shape: Record<string, unknown> };
}

/**
 * Shows a failed call to the user (§8): a 400's field-keyed messages on the form's fields, anything else in
 * the generic error toast (the joined values of the body, or `fallback` when the body says nothing).
 */
export function reportError<Form extends FieldValues>(error: unknown, fallback: string, form?: FormTarget<Form>): void {
  if (!(error instanceof ApiError)) {
    toast.error(error instanceof Error ? error.message : fallback);
    return;
  }
  const fieldErrors = fieldErrorsSchema.safeParse(error.body);
  if (error.status === 400 && form && fieldErrors.success) {
    const unplaced: Record<string, string[]> = {};
    for (const [field, fieldMessages] of Object.entries(fieldErrors.data)) {
      if (Object.hasOwn(form.schema.shape, field)) {
        form.setError(field as Path<Form>, { type: 'server', message: fieldMessages.join(' ') });
      } else unplaced[field] = fieldMessages;
    }
    if (Object.keys(unplaced).length > 0) toast.error(errorText(unplaced, fallback));
    return;
  }
  toast.error(errorText(error.body, fallback));
}
