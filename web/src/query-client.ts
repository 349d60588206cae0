import { QueryClient } from '@tanstack/react-query'
import { ApiError, SessionExpired } from './api.ts'

/**
 * The one cache of the UI's reads (TanStack Query). A refusal (4xx) is an answer, not a failure to retry; a 5xx or a
 * lost connection is tried once more. Screens invalidate the keys their writes change (`['orders']` after placing
 * one), so every list shows the write without a reload; a newer answer always replaces an older one.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      retry: (count, error) =>
        !(error instanceof SessionExpired) && !(error instanceof ApiError && error.status < 500) && count < 1,
    },
    mutations: { retry: false },
  },
})
