import type { Session, Trial } from '@kinetrace/contracts';
import { Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';

const TrialViewer = lazy(async () => ({ default: (await import('./TrialViewer.tsx')).TrialViewer }));

/** The trial viewer, whose code (three.js) loads only when a trial is opened. */
export function LazyTrialViewer({ session, trial }: { session: Session; trial: Trial }) {
  return (
    <Suspense fallback={<Loader aria-label="Loading the 3D viewer" />}>
      <TrialViewer session={session} trial={trial} />
    </Suspense>
  );
}
