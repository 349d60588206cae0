/**
 * Who the logged-in caller is (username, groups, roles) and the tenant's today, as the server answers them to every
 * logged-in user (GET /api/v1/auth/session): read once through TanStack Query and shared by the header and the screens.
 */
import { useQuery } from '@tanstack/react-query'
import { api, ok } from './client.ts'

export function useSession(enabled = true) {
  return useQuery({
    queryKey: ['session'],
    queryFn: () => ok(api.GET('/api/v1/auth/session')),
    enabled,
    // The tenant's day turns at its midnight: a screen left open reads it again now and then.
    staleTime: 60_000,
    refetchInterval: 10 * 60_000,
  })
}

/**
 * Today in the tenant's time zone (yyyy-MM-dd) as the server's clock reads it; undefined until the server has said
 * (never the browser's calendar, whose day may be another).
 */
export function useTenantToday(): string | undefined {
  return useSession().data?.tenant.today
}
