import type { Trial } from '@kinetrace/contracts';

/** The signed URL of a trial's result with `tag`, if processing left one. */
export const resultUrl = (trial: Trial, tag: string): string | undefined =>
  trial.results.find((result) => result.tag === tag && result.media)?.media ?? undefined;

/**
 * A query reading one result file (a signed media URL, so no token is sent): each URL names one
 * version of one file, so it is fetched once and kept.
 */
export const resultFileQuery = <Data>(url: string | null | undefined, read: (response: Response) => Promise<Data>) => ({
  queryKey: ['trial-result', url],
  queryFn: async () => {
    const response = await fetch(url!);
    if (!response.ok) throw new Error(`The result file could not be loaded (${response.status}).`);
    return read(response);
  },
  enabled: Boolean(url),
  staleTime: Number.POSITIVE_INFINITY,
});
