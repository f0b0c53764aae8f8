import {
  DEFAULT_SUBJECT_HEIGHT_M,
  DEFAULT_SUBJECT_WEIGHT_KG,
  GENDER_OPTIONS,
  SEX_OPTIONS,
  subjectInputSchema,
  type Subject,
  type SubjectInput,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Checkbox, Group, Modal, MultiSelect, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { Controller, useForm } from 'react-hook-form';
import { useSaveSubject } from '../api/subjects.ts';
import { useTagList } from '../api/tag-lists.ts';
import { reportError } from '../app/report-error.ts';
import { NumberField } from './NumberField.tsx';
import { optionsOf } from './select-options.ts';

function initialValues(subject: Subject | null): SubjectInput {
  if (!subject) {
    return {
      name: '',
      weight: DEFAULT_SUBJECT_WEIGHT_KG,
      height: DEFAULT_SUBJECT_HEIGHT_M,
      birth_year: '',
      sex_at_birth: null,
      gender: null,
      subject_tags: [],
      characteristics: '',
      // Unticked until the subject consents; the schema accepts only a ticked box.
      terms: false as unknown as true,
    };
  }
  return {
    name: subject.name,
    weight: subject.weight,
    height: subject.height,
    birth_year: subject.birth_year,
    sex_at_birth: subject.sex_at_birth as SubjectInput['sex_at_birth'],
    gender: subject.gender as SubjectInput['gender'],
    subject_tags: subject.subject_tags,
    characteristics: subject.characteristics,
    terms: subject.terms as true,
  };
}

interface SubjectDialogProps {
  /** The subject to edit, or null to create one. */
  subject: Subject | null;
  onClose: () => void;
  onSaved?: (subject: Subject) => void;
}

/**
 * §2.12 subject dialog: every field of §3 with the rules and messages of §5 (the contracts' schema, the same
 * the server checks). A 400 keeps the dialog open with the server's messages on the fields (§4.4).
 */
export function SubjectDialog({ subject, onClose, onSaved }: SubjectDialogProps) {
  const save = useSaveSubject();
  const subjectTags = useTagList('subjects');
  const form = useForm<SubjectInput>({
    resolver: zodResolver(subjectInputSchema),
    mode: 'onChange',
    defaultValues: initialValues(subject),
  });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const saved = await save.mutateAsync({ id: subject?.id ?? null, subject: values });
      onSaved?.(saved);
      onClose();
    } catch (error) {
      reportError(error, 'Could not save the subject.', { setError: form.setError, schema: subjectInputSchema });
    }
  });

  /** A choice the subject may leave open (cleared back to null). */
  const choiceField = (name: 'sex_at_birth' | 'gender', label: string, options: Record<string, string>) => (
    <Controller
      control={form.control}
      name={name}
      render={({ field, fieldState }) => (
        <Select
          label={label}
          data={optionsOf(options)}
          clearable
          value={field.value ?? null}
          onChange={(value) => field.onChange(value)}
          onBlur={field.onBlur}
          error={fieldState.error?.message}
        />
      )}
    />
  );

  return (
    <Modal opened onClose={onClose} title={subject ? 'Edit subject' : 'New subject'} size="lg" centered>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <TextInput label="Name" withAsterisk data-autofocus {...form.register('name')} error={errors.name?.message} />
          <Group grow align="flex-start">
            <NumberField control={form.control} name="weight" label="Weight (kg)" withAsterisk decimalScale={2} />
            <NumberField
              control={form.control}
              name="height"
              label="Height (m)"
              withAsterisk
              decimalScale={3}
              step={0.01}
            />
            <NumberField
              control={form.control}
              name="birth_year"
              label="Birth year"
              withAsterisk
              allowDecimal={false}
            />
          </Group>
          <Group grow align="flex-start">
            {choiceField('sex_at_birth', 'Sex at birth', SEX_OPTIONS)}
            {choiceField('gender', 'Gender', GENDER_OPTIONS)}
          </Group>
          <Controller
            control={form.control}
            name="subject_tags"
            render={({ field, fieldState }) => (
              <MultiSelect
                label="Subject tags"
                withAsterisk
                searchable
                data={subjectTags.data ?? []}
                value={field.value as string[]}
                onChange={field.onChange}
                onBlur={field.onBlur}
                error={fieldState.error?.message}
              />
            )}
          />
          <Textarea
            label="Characteristics"
            autosize
            minRows={2}
            {...form.register('characteristics')}
            error={errors.characteristics?.message}
          />
          <Checkbox
            label="The subject has given informed consent to take part and to have their data processed"
            {...form.register('terms')}
            error={errors.terms?.message}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
