import type { Trial } from '@kinetrace/contracts';
import { Anchor, List, Text } from '@mantine/core';

/** The files processing left for an opened trial (tags of §3 and issue 9), each downloadable. */
export function TrialResults({ trial }: { trial: Trial }) {
  const files = trial.results.filter((result) => result.media !== null);
  if (files.length === 0) return <Text c="dimmed">This trial has no result files.</Text>;
  return (
    <List spacing={4} size="sm" aria-label={`Results of ${trial.name}`}>
      {files.map((result) => (
        <List.Item key={result.id ?? result.tag}>
          <Anchor href={result.media!} target="_blank" rel="noreferrer" download>
            {result.tag}
            {typeof result.meta?.device_id === 'string' ? ` (${result.meta.device_id})` : ''}
          </Anchor>
        </List.Item>
      ))}
    </List>
  );
}
