import { Badge } from '@mantine/core';
import type { Light } from './quality-lights.ts';

const COLOURS: Record<Light, string> = { green: 'green', amber: 'yellow', red: 'red' };
const WORDS: Record<Light, string> = { green: 'Good', amber: 'Check', red: 'Poor' };

/** A traffic light as a coloured badge that also says it in a word (colour alone is not enough to read). */
export function LightBadge({ light, size = 'md' }: { light: Light; size?: 'sm' | 'md' | 'lg' }) {
  return (
    // One width for every word, so that what follows a column of badges lines up.
    <Badge
      color={COLOURS[light]}
      size={size}
      variant="filled"
      data-light={light}
      miw={size === 'sm' ? 60 : 72}
      style={{ flexShrink: 0 }}
    >
      {WORDS[light]}
    </Badge>
  );
}
