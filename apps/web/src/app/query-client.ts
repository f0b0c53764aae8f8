import { QueryClient } from '@tanstack/react-query';

/** Server state is fetched on demand; a failed call is reported to the user rather than retried silently. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false },
    mutations: { retry: false },
  },
});
