import { DEFAULT_COUNTRY, type RegisterForm } from '@kinetrace/contracts';
import { SimpleGrid, TextInput, Textarea } from '@mantine/core';
import { Controller, type FieldValues, type UseFormReturn } from 'react-hook-form';
import { CountrySelect } from './CountrySelect.tsx';

/** The fields a user tells about themself, asked at sign-up (§2.6) and edited on the profile (§2.19). */
type ProfileFieldValues = Pick<
  RegisterForm,
  'first_name' | 'last_name' | 'email' | 'country' | 'institution' | 'profession' | 'reason' | 'website'
>;

/** Each screen's own labels: sign-up says E-mail and marks the website optional, the profile editor does not. */
const LABELS = {
  signUp: { email: 'E-mail', website: 'Website (optional)' },
  profile: { email: 'Email', website: 'Website' },
} as const;

interface ProfileFieldsProps<Form extends ProfileFieldValues & FieldValues> {
  form: UseFormReturn<Form>;
  screen: keyof typeof LABELS;
}

/** First and last name, e-mail, country, institution, profession, reason for use and website. */
export function ProfileFields<Form extends ProfileFieldValues & FieldValues>({
  form,
  screen,
}: ProfileFieldsProps<Form>) {
  // Every form this serves has these fields with these value types, which react-hook-form's types
  // cannot see through a type parameter: the fields are registered on the profile fields alone.
  const { register, control, formState } = form as unknown as UseFormReturn<ProfileFieldValues>;
  const { errors } = formState;
  const labels = LABELS[screen];
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="First name" withAsterisk {...register('first_name')} error={errors.first_name?.message} />
        <TextInput label="Last name" withAsterisk {...register('last_name')} error={errors.last_name?.message} />
      </SimpleGrid>
      <TextInput
        label={labels.email}
        description="Used for two-factor authentication"
        withAsterisk
        type="email"
        autoComplete="email"
        {...register('email')}
        error={errors.email?.message}
      />
      <Controller
        control={control}
        name="country"
        render={({ field, fieldState }) => (
          <CountrySelect
            value={field.value ?? DEFAULT_COUNTRY}
            onChange={field.onChange}
            error={fieldState.error?.message}
          />
        )}
      />
      <TextInput label="Institution" withAsterisk {...register('institution')} error={errors.institution?.message} />
      <TextInput label="Profession" withAsterisk {...register('profession')} error={errors.profession?.message} />
      <Textarea
        label="Reason for use"
        withAsterisk
        autosize
        minRows={2}
        {...register('reason')}
        error={errors.reason?.message}
      />
      <TextInput label={labels.website} {...register('website')} error={errors.website?.message} />
    </>
  );
}
