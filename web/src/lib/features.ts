/** The API features of lib/feature-detection.ts, read once per session from the OpenAPI document. */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { detectFeatures, type Features, NONE } from './feature-detection.ts';

export type { Features };

type Doc = Parameters<typeof detectFeatures>[0];

export const featuresQuery = queryOptions({
  queryKey: ['features'],
  queryFn: async () => {
    try {
      // The description document itself is not an operation of the typed client (it describes them).
      const res = await fetch('/api/openapi.json');
      return res.ok ? detectFeatures((await res.json()) as Doc) : NONE;
    } catch {
      return NONE;
    }
  },
  staleTime: Infinity,
  gcTime: Infinity,
});

export function useFeatures(): Features {
  return useQuery(featuresQuery).data ?? NONE;
}
