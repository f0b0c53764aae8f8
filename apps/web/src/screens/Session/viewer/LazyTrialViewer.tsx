import { Loader } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { TrialViewerProps } from './TrialViewer.tsx';

const TrialViewer = lazy(async () => ({ default: (await import('./TrialViewer.tsx')).TrialViewer }));

/** The trial viewer, whose code (three.js) loads only when a trial is opened. */
export function LazyTrialViewer(props: TrialViewerProps) {
  return (
    <Suspense fallback={<Loader aria-label="Loading the 3D viewer" />}>
      <TrialViewer {...props} />
    </Suspense>
  );
}
