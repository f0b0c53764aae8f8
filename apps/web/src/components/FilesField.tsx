import { FileInput } from '@mantine/core';
import { Controller, type Control, type FieldValues, type Path } from 'react-hook-form';

/** A form's multi-file picker (imports, lens calibrations), its error under it. */
export function FilesField<Form extends FieldValues, Context, Submitted extends FieldValues>({
  control,
  name,
  label,
  accept,
}: {
  control: Control<Form, Context, Submitted>;
  name: Path<Form>;
  label: string;
  accept?: string;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <FileInput
          label={label}
          multiple
          clearable
          accept={accept}
          value={field.value}
          onChange={field.onChange}
          error={fieldState.error?.message}
        />
      )}
    />
  );
}
