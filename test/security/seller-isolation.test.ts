import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created } from '../e2e/catalog-fixtures.ts'
import { orderOf, seedOrderCatalog } from '../e2e/order-fixtures.ts'

/**
 * Seller row-level security on every v1 route that reads or writes a business entity (DECISIONS "General"): two
 * clients restricted to different sellers, MAIN and S2, each with every accounts and ordering role. Records of the
 * other seller are absent (404) on reads and writes; creating under, or moving to, the other seller is 403.
 */
const t = useTestApp()

type Side = 'MAIN' | 'S2'
const OTHER: Record<Side, Side> = { MAIN: 'S2', S2: 'MAIN' }
const ROLES = [
  'accounts.customers.view',
  'accounts.customers.manage',
  'accounts.customerAccounts.view',
  'accounts.customerAccounts.manage',
  'accounts.billingAccounts.view',
  'accounts.billingAccounts.manage',
  'accounts.userAccounts.view',
  'accounts.userAccounts.manage',
  'accounts.subscriptions.view',
  'ordering.orders.view',
  'ordering.orders.manage',
  'billing.wallets.view',
]
const tokens = {} as Record<Side, string>

const account = { billingCycle: 'CYC_M', language: 'ENG', country: 'FR', tradingCurrency: 'EUR' }

interface ResourceCase {
  path: string
  /** The records of each seller, as the seed made them. */
  records: Record<Side, string[]>
  /** The relation a record's seller path starts with, and a parent of each seller it can point to. */
  parent: { field: string; of: Record<Side, string> }
  /** A new record under `parent`; absent when a restricted client can create none (sellers). */
  newRecord?: (code: string, parent: string) => Record<string, unknown>
  /** A harmless change, to prove updates of one's own records work. */
  change: Record<string, unknown>
}

const CASES: ResourceCase[] = [
  {
    path: 'sellers',
    records: { MAIN: ['MAIN'], S2: ['S2'] },
    parent: { field: 'parentSeller', of: { MAIN: 'MAIN', S2: 'S2' } },
    change: { description: 'changed' },
  },
  {
    path: 'customers',
    records: { MAIN: ['C1'], S2: ['C2'] },
    parent: { field: 'seller', of: { MAIN: 'MAIN', S2: 'S2' } },
    newRecord: (code, seller) => ({ code, seller, name: 'New' }),
    change: { name: 'changed' },
  },
  {
    path: 'customerAccounts',
    records: { MAIN: ['CA1'], S2: ['CA2'] },
    parent: { field: 'customer', of: { MAIN: 'C1', S2: 'C2' } },
    newRecord: (code, customer) => ({ code, customer }),
    change: { description: 'changed' },
  },
  {
    path: 'billingAccounts',
    records: { MAIN: ['BA_1', 'BA_2', 'BA_USD'], S2: ['BA_S2'] },
    parent: { field: 'customerAccount', of: { MAIN: 'CA1', S2: 'CA2' } },
    newRecord: (code, customerAccount) => ({ code, customerAccount, ...account }),
    change: { description: 'changed' },
  },
  {
    path: 'userAccounts',
    records: { MAIN: ['UA_1', 'UA_1B', 'UA_2', 'UA_USD'], S2: ['UA_S2'] },
    parent: { field: 'billingAccount', of: { MAIN: 'BA_1', S2: 'BA_S2' } },
    newRecord: (code, billingAccount) => ({ code, billingAccount }),
    change: { description: 'changed' },
  },
]

beforeAll(async () => {
  await seedOrderCatalog(t)
  const post = (path: string, body: unknown) => created(t, 'POST', `/api/v1/${path}`, body)
  await post('sellers', { code: 'S2', tradingCurrency: 'EUR', country: 'FR', language: 'ENG' })
  await post('customers', { code: 'C2', seller: 'S2', name: 'Blaise' })
  await post('customerAccounts', { code: 'CA2', customer: 'C2' })
  await post('billingAccounts', { code: 'BA_S2', customerAccount: 'CA2', ...account })
  await post('userAccounts', { code: 'UA_S2', billingAccount: 'BA_S2' })
  tokens.MAIN = await t.tokenWithRoles(ROLES, { sellerCodes: ['MAIN'] })
  tokens.S2 = await t.tokenWithRoles(ROLES, { sellerCodes: ['S2'] })
})

const as = (side: Side, method: string, url: string, body?: unknown) => t.requestAs(tokens[side], method, url, body)
/** A record as the unrestricted administrator reads it. */
const record = async (url: string) => (await t.request('GET', url)).body as unknown
const codesOf = (body: any) => (body.data as { code: string }[]).map((r) => r.code).sort()

describe.each(CASES)('/api/v1/$path', (resource) => {
  const base = `/api/v1/${resource.path}`

  it.each<Side>(['MAIN', 'S2'])('%s lists and counts only its own records', async (side) => {
    const list = await as(side, 'GET', `${base}?limit=1000`)
    expect(list.status).toBe(200)
    expect(codesOf(list.body)).toEqual([...resource.records[side]].sort())
    expect(list.body.total).toBe(resource.records[side].length)
  })

  it.each<Side>(['MAIN', 'S2'])('%s gets its own records; the other seller’s are 404', async (side) => {
    for (const code of resource.records[side]) expect((await as(side, 'GET', `${base}/${code}`)).status).toBe(200)
    for (const code of resource.records[OTHER[side]]) {
      const response = await as(side, 'GET', `${base}/${code}`)
      expect(response.status).toBe(404)
      expect(response.body.errorCode).toBe('ENTITY_NOT_FOUND')
    }
  })

  it.each<Side>(['MAIN', 'S2'])(
    '%s updates its own records; the other seller’s are 404 and unchanged',
    async (side) => {
      const own = resource.records[side][0]!
      expect((await as(side, 'PUT', `${base}/${own}`, resource.change)).status).toBe(200)
      const theirs = resource.records[OTHER[side]][0]!
      const before = await record(`${base}/${theirs}`)
      const response = await as(side, 'PUT', `${base}/${theirs}`, { description: 'taken over' })
      expect(response.status).toBe(404)
      expect(await record(`${base}/${theirs}`)).toEqual(before)
    },
  )

  it.each<Side>(['MAIN', 'S2'])('%s cannot move its record to the other seller (403, unchanged)', async (side) => {
    const own = resource.records[side][0]!
    const before = await record(`${base}/${own}`)
    const response = await as(side, 'PUT', `${base}/${own}`, {
      [resource.parent.field]: resource.parent.of[OTHER[side]],
    })
    expect(response.status).toBe(403)
    expect(response.body).toMatchObject({ errorCode: 'FORBIDDEN', details: [{ field: resource.parent.field }] })
    expect(await record(`${base}/${own}`)).toEqual(before)
  })

  it.each<Side>(['MAIN', 'S2'])(
    '%s creates only under its own seller, and deletes only its own records',
    async (side) => {
      const code = `NEW_${resource.path}_${side}`
      const build = resource.newRecord
      if (!build) {
        // A restricted client creates no seller: the new seller would not be one of its sellers.
        const response = await as(side, 'POST', base, { code, tradingCurrency: 'EUR' })
        expect(response.status).toBe(403)
        expect((await t.request('GET', `${base}/${code}`)).status).toBe(404)
      } else {
        const foreign = await as(side, 'POST', base, build(`${code}_X`, resource.parent.of[OTHER[side]]))
        expect(foreign.status).toBe(403)
        expect(foreign.body.details).toEqual([{ field: resource.parent.field, message: expect.any(String) }])
        expect((await t.request('GET', `${base}/${code}_X`)).status).toBe(404)
        expect((await as(side, 'POST', base, build(code, resource.parent.of[side]))).status).toBe(201)
        // The other seller's client does not see it, cannot delete it; its owner can.
        expect((await as(OTHER[side], 'GET', `${base}/${code}`)).status).toBe(404)
        expect((await as(OTHER[side], 'DELETE', `${base}/${code}`)).status).toBe(404)
        expect((await as(side, 'DELETE', `${base}/${code}`)).status).toBe(204)
      }
      for (const theirs of resource.records[OTHER[side]]) {
        if (resource.path !== 'sellers' && theirs !== resource.records[OTHER[side]][0]) continue
        expect((await as(side, 'DELETE', `${base}/${theirs}`)).status).toBe(404)
        expect((await t.request('GET', `${base}/${theirs}`)).status).toBe(200)
      }
    },
  )
})

describe('orders', () => {
  const license = [{ offerTemplateCode: 'OF_SIMPLE', orderProducts: [{ productCode: 'PR_LICENSE' }] }]

  it("refuses, for anyone, another seller's billing and user accounts (400 naming both)", async () => {
    const body = orderOf(license, { code: 'ORD_MIXED', billingAccountCode: 'BA_S2', userAccountCode: 'UA_S2' })
    for (const url of ['/api/v1/orders?autoValidate=true', '/api/v1/orders/preview']) {
      const response = await t.request('POST', url, body)
      expect(response.status).toBe(400)
      expect(response.body.errorCode).toBe('VALIDATION_FAILED')
      expect(response.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'billingAccountCode',
        'userAccountCode',
      ])
    }
    expect((await t.request('GET', '/api/v1/orders/ORD_MIXED')).status).toBe(404)
    const operations = await t.request(
      'GET',
      `/api/v1/query/walletOperation?filters=${encodeURIComponent(JSON.stringify({ billingAccount: 'BA_S2' }))}`,
    )
    expect(operations.body.total).toBe(0)
  })

  it.each([
    ["another seller's seller code", { sellerCode: 'S2', billingAccountCode: 'BA_S2', userAccountCode: 'UA_S2' }],
    ["another seller's accounts", { billingAccountCode: 'BA_S2', userAccountCode: 'UA_S2' }],
  ])('refuses a restricted client %s as unknown codes', async (_name, parties) => {
    const response = await as('MAIN', 'POST', '/api/v1/orders?autoValidate=true', orderOf(license, parties))
    expect(response.status).toBe(400)
    for (const detail of response.body.details as { field: string; message: string }[])
      expect(detail.message).toMatch(/^no (seller|billing account|user account) with code/)
    expect(response.body.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(Object.keys(parties)),
    )
  })

  it("places for its own seller; the other seller's client cannot read, validate or see its records", async () => {
    const placed = await as('MAIN', 'POST', '/api/v1/orders', orderOf(license, { code: 'ORD_MAIN' }))
    expect(placed.status, JSON.stringify(placed.body)).toBe(201)
    expect((await as('S2', 'GET', '/api/v1/orders/ORD_MAIN')).status).toBe(404)
    expect((await as('S2', 'POST', '/api/v1/orders/ORD_MAIN/validation')).status).toBe(404)
    expect((await as('MAIN', 'POST', '/api/v1/orders/ORD_MAIN/validation')).status).toBe(200)
    for (const entity of ['order', 'subscription', 'walletOperation', 'walletInstance']) {
      const theirs = await as('S2', 'GET', `/api/v1/query/${entity}`)
      expect([entity, theirs.status, theirs.body.total]).toEqual([entity, 200, 0])
      const ours = await as('MAIN', 'GET', `/api/v1/query/${entity}`)
      expect(ours.body.total, entity).toBeGreaterThan(0)
    }
  })
})
