import { QueryClient } from '@tanstack/react-query';

/**
 * The site's one query cache. No retries: an answer (a 401 that ends the session, a 404) is shown as it came, at
 * once; and no refetch on focus: what is on screen changes only when the visitor asks.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
