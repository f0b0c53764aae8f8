import { COUNTRIES, NOT_SELECTED_COUNTRY } from '@kinetrace/contracts';
import { Select } from '@mantine/core';

/** The preferred country (US) first, then 'Not Selected', then every other country by name (§2.6). */
const COUNTRY_OPTIONS = [COUNTRIES[0].name, NOT_SELECTED_COUNTRY, ...COUNTRIES.slice(1).map((country) => country.name)];

interface CountrySelectProps {
  value: string;
  onChange: (country: string) => void;
  error?: string;
}

export function CountrySelect({ value, onChange, error }: CountrySelectProps) {
  return (
    <Select
      label="Country"
      data={COUNTRY_OPTIONS}
      value={value}
      onChange={(country) => onChange(country ?? NOT_SELECTED_COUNTRY)}
      searchable
      allowDeselect={false}
      error={error}
    />
  );
}
