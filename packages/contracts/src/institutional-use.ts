import { z } from 'zod';

/** §3: how a user declares they use the product; the first three need a purchased licence. */
export const INSTITUTIONAL_USES = [
  'patient_care',
  'sports_performance_assessment',
  'use_in_company',
  'research_at_academic',
  'teaching_at_academic',
  'other_non_commercial',
] as const;

export const institutionalUseSchema = z.enum(INSTITUTIONAL_USES);
export type InstitutionalUse = z.infer<typeof institutionalUseSchema>;

export const NOT_PERMITTED_USES: readonly InstitutionalUse[] = [
  'patient_care',
  'sports_performance_assessment',
  'use_in_company',
];

export const INSTITUTIONAL_USE_LABELS: Record<InstitutionalUse, string> = {
  patient_care: 'Patient care (clinical use)',
  sports_performance_assessment: 'Sports performance assessment',
  use_in_company: 'Use in a company',
  research_at_academic: 'Research at an academic or non-profit institution',
  teaching_at_academic: 'Teaching at an academic or non-profit institution',
  other_non_commercial: 'Other non-commercial use',
};

/** The licence page is forced when the stored use is empty or not permitted (§2.2, §4.1). */
export function needsLicenseAnswer(use: string | null | undefined): boolean {
  return !use || (NOT_PERMITTED_USES as readonly string[]).includes(use);
}
