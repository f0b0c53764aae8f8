import { countries } from 'countries-list';

export interface Country {
  name: string;
  iso2: string;
  /** International dialling code with its plus sign, e.g. "+1". */
  dialCode: string;
}

export const NOT_SELECTED_COUNTRY = 'Not Selected';
export const PREFERRED_COUNTRY_ISO2 = 'US';

/** Every country (from the maintained `countries-list` package), the preferred one first, then by name. */
export const COUNTRIES: readonly Country[] = Object.entries(countries)
  .map(([iso2, country]) => ({ name: country.name, iso2, dialCode: `+${country.phone[0]}` }))
  .sort((a, b) => {
    if (a.iso2 === PREFERRED_COUNTRY_ISO2) return -1;
    if (b.iso2 === PREFERRED_COUNTRY_ISO2) return 1;
    return a.name.localeCompare(b.name);
  });

export const DEFAULT_COUNTRY = COUNTRIES[0].name;

/** The values the country field accepts: every country name, or 'Not Selected'. */
export const COUNTRY_NAMES: readonly string[] = [NOT_SELECTED_COUNTRY, ...COUNTRIES.map((country) => country.name)];
