import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'

const t = useTestApp()

const PUBLIC_PREFIXES = [
  '/health/',
  '/metrics',
  '/api/docs',
  '/api/openapi.json',
  '/auth/realms/',
  '/api/portal/login',
  '/ui',
]

function concrete(url: string): string {
  return url.replace(/:(\w+)/g, (_m, name: string) =>
    name === 'entity' ? 'billingAccount' : name === 'id' ? '1' : 'SOME_CODE',
  )
}

describe('every route is guarded', () => {
  it('declares a policy for every route, and only health, metrics, docs, the web UI files (and / leading to it), token and discovery are public', () => {
    for (const entry of t.app.policies) {
      expect(entry.policy, `${entry.method} ${entry.url}`).toBeDefined()
      if (entry.policy && 'public' in entry.policy) {
        expect(
          entry.url === '/' || PUBLIC_PREFIXES.some((p) => entry.url.startsWith(p)),
          `${entry.method} ${entry.url} is public`,
        ).toBe(true)
      }
    }
  })

  it('answers 401 without a token and 403 naming the role with a token lacking it, on every role-guarded route', async () => {
    const noRoles = await t.tokenWithRoles([])
    const guarded = t.app.policies.filter(
      (e) => e.policy && ('role' in e.policy || 'anyRole' in e.policy || 'entityView' in e.policy),
    )
    expect(guarded.length).toBeGreaterThan(100)
    for (const entry of guarded) {
      const url = concrete(entry.url)
      const body = ['POST', 'PUT', 'PATCH'].includes(entry.method) ? {} : undefined
      const anonymous = await t.requestAs(undefined, entry.method, url, body)
      expect(anonymous.status, `${entry.method} ${url} without a token`).toBe(401)
      const forbidden = await t.requestAs(noRoles, entry.method, url, body)
      expect(forbidden.status, `${entry.method} ${url} without the role`).toBe(403)
      if ('role' in entry.policy!)
        expect(forbidden.body.message ?? forbidden.body.error_code).toContain(entry.policy.role)
    }
  })

  it('answers 401 on portal routes without a session cookie', async () => {
    const portal = t.app.policies.filter((e) => e.policy && 'session' in e.policy)
    expect(portal.map((e) => e.url).sort()).toEqual(['/api/portal/groups', '/api/portal/logout', '/api/portal/token'])
    for (const entry of portal) {
      const response = await t.requestAs(
        t.adminToken,
        entry.method,
        entry.url,
        entry.method === 'POST' ? {} : undefined,
      )
      expect(response.status, `${entry.method} ${entry.url}`).toBe(401)
    }
  })
})
