import { tagListPaths, type TagOption } from '@kinetrace/contracts';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { NetworkError } from '../app/api-client.ts';

const tagListSchema = z.array(z.object({ value: z.string(), label: z.string() }));

/** The static subject or trial tag list (value/label pairs), served outside /api (§3, §7). */
export const useTagList = (kind: keyof typeof tagListPaths) =>
  useQuery({
    queryKey: ['tag-list', kind],
    queryFn: async (): Promise<TagOption[]> => {
      const response = await fetch(tagListPaths[kind]).catch(() => {
        throw new NetworkError();
      });
      if (!response.ok) throw new Error(`The ${kind} tag list could not be loaded (status ${response.status}).`);
      return tagListSchema.parse(await response.json());
    },
    staleTime: Infinity,
  });
