import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'

const t = useTestApp()

const CATALOG_PATHS = [
  '/api/v1/attributes',
  '/api/v1/charges',
  '/api/v1/products',
  '/api/v1/offerTemplates',
  '/api/v1/offerTemplateCategories',
  '/api/v1/serviceTemplates',
  '/api/v1/discountPlans',
]

/** The role family each catalog path belongs to (DECISIONS "Authorization"). */
function expectedResource(url: string): string {
  if (url.startsWith('/api/v1/charges')) return 'catalog.charges'
  if (url.startsWith('/api/v1/offerTemplate')) return 'catalog.offers'
  if (url.startsWith('/api/v1/serviceTemplates')) return 'catalog.services'
  if (url.startsWith('/api/v1/discountPlans')) return 'catalog.discounts'
  return 'catalog.products'
}

const concrete = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => (name === 'version' ? '1' : 'SOME_CODE'))

describe('catalog routes', () => {
  const routes = () => t.app.policies.filter((e) => CATALOG_PATHS.some((p) => e.url.startsWith(p)))

  it('declare the view role for reads and the manage role for writes of their resource', () => {
    expect(routes().length).toBeGreaterThan(50)
    for (const entry of routes()) {
      // Evaluating a price changes nothing: it is a read, sent as POST for its body.
      const scope = entry.method === 'GET' || entry.url.endsWith('/pricing/evaluate') ? 'view' : 'manage'
      expect(entry.policy, `${entry.method} ${entry.url}`).toEqual({ role: `${expectedResource(entry.url)}.${scope}` })
    }
  })

  it('answer 401 without a token and 403 naming the role without it, before looking at the request', async () => {
    const noRoles = await t.tokenWithRoles([])
    for (const entry of routes()) {
      const url = concrete(entry.url)
      const body = ['POST', 'PUT'].includes(entry.method) ? {} : undefined
      expect((await t.requestAs(undefined, entry.method, url, body)).status, `${entry.method} ${url}`).toBe(401)
      const forbidden = await t.requestAs(noRoles, entry.method, url, body)
      expect(forbidden.status, `${entry.method} ${url}`).toBe(403)
      expect(forbidden.body.message).toContain((entry.policy as { role: string }).role)
    }
  })

  it('answer unknown codes and empty bodies without a 500', async () => {
    for (const entry of routes()) {
      if (entry.url.endsWith('/api/v1/charges') || !entry.url.includes(':')) continue
      const response = await t.request(
        entry.method,
        concrete(entry.url),
        ['POST', 'PUT'].includes(entry.method) ? {} : undefined,
      )
      expect(response.status, `${entry.method} ${entry.url}: ${JSON.stringify(response.body)}`).toBeLessThan(500)
      if (response.status >= 400) expect(response.body).toMatchObject({ status: 'FAIL', errorCode: expect.any(String) })
    }
  })
})
