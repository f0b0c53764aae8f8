import { Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { FigureFrame } from './neutral-pose-example.ts';

/** The drawing's window on the page, in metres (y down): a 1.75 m model standing at the origin, turning about it. */
const VIEW_BOX = '-0.55 -1.9 1.1 2';
const FIGURE_WIDTH_PX = 104;
/** The head drawn around the ears' midpoint: the default model's ears are 0.16 m apart. */
const HEAD_RADIUS_M = 0.1;
const STROKE = 'var(--mantine-color-blue-7)';

const number = (value: number) => value.toFixed(4);

/** Values of one attribute over the frames, for an SVG animation. */
const over = (frames: readonly FigureFrame[], read: (frame: FigureFrame) => number) =>
  frames.map((frame) => number(read(frame))).join(';');

/** A stick figure, still (one frame) or played in a loop over `durationS` (SVG animations: no script, no timer). */
function Figure({ frames, durationS, label }: { frames: readonly FigureFrame[]; durationS?: number; label: string }) {
  const [first] = frames;
  const animate = (attributeName: string, read: (frame: FigureFrame) => number) =>
    durationS !== undefined && (
      <animate
        attributeName={attributeName}
        values={over(frames, read)}
        dur={`${durationS}s`}
        repeatCount="indefinite"
      />
    );
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={VIEW_BOX}
      width={FIGURE_WIDTH_PX}
      style={{ background: 'var(--mantine-color-gray-0)', borderRadius: 4 }}
    >
      <line x1={-0.55} x2={0.55} y1={0} y2={0} stroke="var(--mantine-color-gray-4)" strokeWidth={0.01} />
      {first.bones.map((bone, b) => (
        <line
          key={b}
          x1={number(bone[0])}
          y1={number(bone[1])}
          x2={number(bone[2])}
          y2={number(bone[3])}
          stroke={STROKE}
          strokeWidth={0.035}
          strokeLinecap="round"
        >
          {animate('x1', (frame) => frame.bones[b][0])}
          {animate('y1', (frame) => frame.bones[b][1])}
          {animate('x2', (frame) => frame.bones[b][2])}
          {animate('y2', (frame) => frame.bones[b][3])}
        </line>
      ))}
      <circle
        cx={number(first.head[0])}
        cy={number(first.head[1])}
        r={HEAD_RADIUS_M}
        fill="none"
        stroke={STROKE}
        strokeWidth={0.03}
      >
        {animate('cx', (frame) => frame.head[0])}
        {animate('cy', (frame) => frame.head[1])}
      </circle>
    </svg>
  );
}

/**
 * §2.11: the Neutral panel's example image and example videos, drawn from Kinetrace's own model (loaded apart
 * from the screen: the model's code is only needed here).
 */
export function NeutralPoseExample() {
  const examples = useQuery({
    queryKey: ['neutral-pose-examples'],
    queryFn: async () => (await import('./neutral-pose-example.ts')).neutralPoseExamples(),
    staleTime: Infinity,
  });
  if (!examples.data) return <Loader size="sm" aria-label="Loading the examples" />;
  const { image, videos } = examples.data;
  return (
    <SimpleGrid cols={3} spacing="xs" data-testid="neutral-examples">
      <Stack gap={2} align="center">
        <Figure frames={[image]} label="Example image: the neutral pose from the front" />
        <Text size="xs" c="dimmed" ta="center">
          The neutral pose
        </Text>
      </Stack>
      {videos.map((video) => (
        <Stack key={video.title} gap={2} align="center">
          <Figure frames={video.frames} durationS={video.durationS} label={`Example video: ${video.title}`} />
          <Text size="xs" c="dimmed" ta="center">
            {video.title}
          </Text>
        </Stack>
      ))}
    </SimpleGrid>
  );
}
