import { Box, Stepper } from '@mantine/core';
import { useNavigate } from 'react-router';
import { sessionPath } from '../app/route-names.ts';

const WIZARD_STEPS = [
  { label: 'Connect devices', path: (id: string) => `/${id}/connect-devices` },
  { label: 'Calibration', path: (id: string) => `/${id}/calibration` },
  { label: 'Neutral', path: (id: string) => `/${id}/neutral` },
  { label: 'Session', path: sessionPath },
] as const;

export type WizardStep = (typeof WIZARD_STEPS)[number]['label'];

/** §4.2 where the user is in setting up a session: Connect devices → Calibration → Neutral → Session; earlier steps open on click. */
export function WizardStepper({ sessionId, step }: { sessionId: string | null; step: WizardStep }) {
  const navigate = useNavigate();
  const active = WIZARD_STEPS.findIndex((candidate) => candidate.label === step);
  return (
    <Box component="nav" aria-label="Session set-up steps" mb="lg">
      <Stepper
        active={active}
        size="sm"
        onStepClick={(index) => {
          if (sessionId && index < active) void navigate(WIZARD_STEPS[index].path(sessionId));
        }}
      >
        {WIZARD_STEPS.map((candidate, index) => (
          <Stepper.Step
            key={candidate.label}
            label={candidate.label}
            allowStepSelect={sessionId !== null && index < active}
            aria-current={index === active ? 'step' : undefined}
          />
        ))}
      </Stepper>
    </Box>
  );
}
