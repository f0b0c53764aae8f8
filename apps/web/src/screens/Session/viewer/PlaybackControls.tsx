import { PLAYBACK_SPEEDS } from '@kinetrace/contracts';
import { ActionIcon, Checkbox, Group, NumberInput, Select, Slider, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { usePlayback, type PlaybackClock, type PlaybackSpeed } from './playback-clock.ts';

/** Player icons as SVG paths on a 24-unit square (system fonts lack the media-control glyphs). */
const ICONS = {
  start: 'M6 5h2v14H6zM20 5v14L9 12z',
  previous: 'M4 5h2v14H4zM20 5v14L8 12z',
  play: 'M7 5v14l12-7z',
  pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
  next: 'M18 5h2v14h-2zM4 5v14l12-7z',
  end: 'M16 5h2v14h-2zM4 5v14l11-7z',
} as const;

const Icon = ({ path }: { path: string }) => (
  <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true">
    <path d={path} fill="currentColor" />
  </svg>
);

const decimalsOf = (stepS: number) => Math.max(2, Math.ceil(-Math.log10(stepS)));

/** Time field and slider, play/pause, a frame back and forward, start and end, speed and looping (spec §2.13, §9). */
export function PlaybackControls({ clock }: { clock: PlaybackClock }) {
  const { timeS, playing, speed, loop } = usePlayback(clock);
  const decimals = decimalsOf(clock.frameS);
  // What is being typed in the time field; the clock seeks on Enter or when the field loses focus.
  const [draft, setDraft] = useState<string | number | null>(null);
  const commitDraft = () => {
    if (draft !== null && draft !== '' && Number.isFinite(Number(draft))) clock.seek(Number(draft));
    setDraft(null);
  };
  const button = (label: string, icon: keyof typeof ICONS, action: () => void) => (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" aria-label={label} onClick={action}>
        <Icon path={ICONS[icon]} />
      </ActionIcon>
    </Tooltip>
  );
  return (
    <Group gap="xs" align="center">
      {button('Jump to start', 'start', () => clock.seek(clock.startS))}
      {button('Previous frame', 'previous', () => clock.step(-1))}
      {playing ? button('Pause', 'pause', () => clock.pause()) : button('Play', 'play', () => clock.play())}
      {button('Next frame', 'next', () => clock.step(1))}
      {button('Jump to end', 'end', () => clock.seek(clock.endS))}
      <Slider
        aria-label="Time slider"
        style={{ flex: '1 1 160px' }}
        min={clock.startS}
        max={clock.endS}
        step={clock.frameS}
        value={timeS}
        onChange={(value) => clock.seek(value)}
        label={(value) => `${value.toFixed(decimals)} s`}
      />
      <NumberInput
        aria-label="Time (s)"
        w={110}
        size="xs"
        suffix=" s"
        min={clock.startS}
        max={clock.endS}
        step={clock.frameS}
        decimalScale={decimals}
        value={draft ?? Number(timeS.toFixed(decimals))}
        onChange={setDraft}
        onBlur={commitDraft}
        onKeyDown={(event) => event.key === 'Enter' && commitDraft()}
      />
      <Select
        aria-label="Speed"
        w={90}
        size="xs"
        allowDeselect={false}
        data={PLAYBACK_SPEEDS.map((option) => ({ value: String(option), label: `${option}×` }))}
        value={String(speed)}
        onChange={(value) => value && clock.setSpeed(Number(value) as PlaybackSpeed)}
      />
      <Checkbox label="Loop" checked={loop} onChange={(event) => clock.setLoop(event.currentTarget.checked)} />
    </Group>
  );
}
