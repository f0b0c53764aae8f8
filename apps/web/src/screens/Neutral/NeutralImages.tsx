import { Image, SimpleGrid } from '@mantine/core';

/** §2.11: the neutral-pose images for verification, two per row, 150 px wide. */
export function NeutralImages({ images }: { images: readonly string[] }) {
  if (images.length === 0) return null;
  return (
    <SimpleGrid cols={2} w={2 * 150 + 16} spacing="md" data-testid="neutral-images">
      {images.map((url, index) => (
        <Image key={url} src={url} w={150} alt={`Neutral pose, camera ${index + 1}`} />
      ))}
    </SimpleGrid>
  );
}
