import { instanceInfoSchema, instancePaths } from '@kinetrace/contracts';
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../app/api-client.ts';

/** The installation's provider and external links (profile menu, login page, register agreements). */
export const useInstanceInfo = () =>
  useQuery({
    queryKey: ['instance'],
    queryFn: () => apiRequest(instancePaths.info, { schema: instanceInfoSchema }),
    staleTime: Infinity,
  });
