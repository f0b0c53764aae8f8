import { Container, Text, Title } from '@mantine/core';

/** Stands in for the screens of later issues, so their routes (and the guard on them) exist already. */
export function NotYetAvailableScreen({ title }: { title: string }) {
  return (
    <Container size="md" my="xl">
      <Title order={2} mb="md">
        {title}
      </Title>
      <Text c="dimmed">This screen is not available yet.</Text>
    </Container>
  );
}
