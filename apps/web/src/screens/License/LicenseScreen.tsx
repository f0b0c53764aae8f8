import {
  INSTITUTIONAL_USES,
  INSTITUTIONAL_USE_LABELS,
  NOT_PERMITTED_USES,
  institutionalUseSchema,
  messages,
  type InstitutionalUse,
} from '@kinetrace/contracts';
import { Alert, Button, Radio, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useSetInstitutionalUse } from '../../api/account.ts';
import { authStore } from '../../app/auth-store.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { AuthCard } from '../../components/AuthCard.tsx';

const isPermitted = (use: InstitutionalUse) => !NOT_PERMITTED_USES.includes(use);

/**
 * §2.7: the licence questionnaire. Each choice is saved at once; Submit saves again and opens the
 * session list, and is disabled while nothing or a not-permitted use is chosen.
 */
export function LicenseScreen() {
  const navigate = useNavigate();
  const setInstitutionalUse = useSetInstitutionalUse();
  const [previousUse] = useState(() => authStore.get().institutionalUse);
  const [choice, setChoice] = useState<InstitutionalUse | null>(null);
  const saveFailed = (error: unknown) => reportError(error, 'Could not save your answer.');

  const choose = (value: string) => {
    const use = institutionalUseSchema.parse(value);
    setChoice(use);
    setInstitutionalUse.mutate(use, { onError: saveFailed });
  };

  const submit = async () => {
    if (!choice) return;
    try {
      await setInstitutionalUse.mutateAsync(choice);
      authStore.update({ institutionalUse: choice });
      await navigate(fixedPaths.SelectSession);
    } catch (error) {
      saveFailed(error);
    }
  };

  return (
    <AuthCard title="How do you use Kinetrace?" width={560}>
      <Stack>
        {previousUse && !isPermitted(previousUse) && (
          <Text c="orange.8" size="sm">
            {messages.licensePreviousNotPermitted}
          </Text>
        )}
        <Text size="sm">
          Kinetrace is free for academic research and educational use. Patient care, sports performance assessment and
          use in a company need a licence from the provider.
        </Text>
        <Radio.Group value={choice} onChange={choose} label="Select the use that best describes yours" withAsterisk>
          <Stack mt="xs" gap="xs">
            {INSTITUTIONAL_USES.map((use) => (
              <Radio key={use} value={use} label={INSTITUTIONAL_USE_LABELS[use]} />
            ))}
          </Stack>
        </Radio.Group>
        {choice && !isPermitted(choice) && (
          <Alert color="blue" title="Not a permitted use">
            {messages.licenseNotPermitted}
          </Alert>
        )}
        <Button
          onClick={() => void submit()}
          disabled={!choice || !isPermitted(choice)}
          loading={setInstitutionalUse.isPending}
        >
          Submit
        </Button>
      </Stack>
    </AuthCard>
  );
}
