import { Container, Title } from '@mantine/core';
import { useParams } from 'react-router';
import { ChartPage } from '../Chart/ChartPage.tsx';

/** Spec §2.1 Dashboard (`/dashboard/{id}`, id may be empty): the kinematics of a session's trials on the chart page. */
export function DashboardScreen() {
  const { id } = useParams();
  return (
    <Container fluid my="md">
      <Title order={2} mb="md">
        Kinematics dashboard
      </Title>
      <ChartPage sessionId={id || null} />
    </Container>
  );
}
