import { Container, Paper, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** The narrow card the account pages (login, verify, register, licence, passwords) are laid out in. */
export function AuthCard({ title, width = 440, children }: { title: string; width?: number; children: ReactNode }) {
  return (
    <Container size={width} my="xl">
      <Title order={2} ta="center" mb="md">
        {title}
      </Title>
      <Paper withBorder shadow="sm" p="lg" radius="md">
        {children}
      </Paper>
    </Container>
  );
}
