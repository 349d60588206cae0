import { describe, expect, it } from 'vitest'
import { BILLING_ROLES, BUILT_IN_GROUPS, PORTAL_ROLES, QUERY_ROLES } from './role-catalog.ts'

const group = (name: string) => new Set(BUILT_IN_GROUPS.find((g) => g.name === name)!.roles)

describe('role catalog', () => {
  it('has exactly 73 billing roles named <domain>.<resource>.<scope>, by domain as the document counts them', () => {
    expect(BILLING_ROLES).toHaveLength(73)
    expect(new Set(BILLING_ROLES.map((r) => r.name)).size).toBe(73)
    for (const r of BILLING_ROLES)
      expect(r.name).toMatch(/^(api|accounts|catalog|ordering|billing|finance)\.[a-zA-Z]+\.(view|manage|run)$/)
    const byDomain = Object.fromEntries(
      ['api', 'accounts', 'catalog', 'ordering', 'billing', 'finance'].map((d) => [
        d,
        BILLING_ROLES.filter((r) => r.domain === d).length,
      ]),
    )
    expect(byDomain).toEqual({ api: 17, accounts: 10, catalog: 12, ordering: 8, billing: 12, finance: 14 })
    expect(BILLING_ROLES.filter((r) => r.scope === 'view')).toHaveLength(36)
  })

  it('keeps the query roles beside the catalog and the portal roles out of it', () => {
    expect(QUERY_ROLES.map((r) => r.name)).toEqual(['queryUser', 'queryExpert', 'queryManagement'])
    for (const portal of PORTAL_ROLES) expect(BILLING_ROLES.map((r) => r.name)).not.toContain(portal)
  })

  it('gives each built-in group exactly the roles of its role list', () => {
    expect(BUILT_IN_GROUPS.map((g) => g.name)).toEqual([
      'Platform Admin',
      'Account Manager',
      'Billing Manager',
      'Catalog Manager',
      'Finance Manager',
      'Viewer',
    ])
    expect(group('Platform Admin').size).toBe(73)
    const viewer = group('Viewer')
    expect(viewer.size).toBe(36)
    expect([...viewer].every((r) => r.endsWith('.view'))).toBe(true)
    expect(viewer.has('api.jobs.run')).toBe(false)
    const catalog = group('Catalog Manager')
    expect(catalog.has('catalog.charges.manage')).toBe(true)
    expect(catalog.has('billing.billingRuns.manage')).toBe(false)
    expect(catalog.has('ordering.orders.view')).toBe(true)
    expect(catalog.size).toBe(8 + 12 + 4)
    expect(group('Account Manager').size).toBe(8 + 10 + 6 + 8 + 3)
    expect(group('Billing Manager').size).toBe(8 + 5 + 1 + 12 + 2)
    expect(group('Finance Manager').size).toBe(8 + 2 + 1 + 14)
  })
})
