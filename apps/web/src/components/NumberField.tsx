import { NumberInput, type NumberInputProps } from '@mantine/core';
import { Controller, type Control, type FieldValues, type Path } from 'react-hook-form';

type InputProps = Omit<NumberInputProps, 'name' | 'value' | 'defaultValue' | 'onChange' | 'onBlur' | 'error'>;

/** A form's number input, its error under it; an emptied input holds '' (the schema says it is required). */
export function NumberField<Form extends FieldValues, Context, Submitted extends FieldValues>({
  control,
  name,
  ...input
}: { control: Control<Form, Context, Submitted>; name: Path<Form> } & InputProps) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field, fieldState }) => (
        <NumberInput
          {...input}
          {...field}
          value={field.value as number | string}
          disabled={input.disabled ?? field.disabled}
          error={fieldState.error?.message}
        />
      )}
    />
  );
}
