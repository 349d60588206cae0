import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { useTestApp } from '../support/test-app.ts'

// The penetration test's fan-out: `customer?limit=3&nested=seller&depth=5` answered 156 MB after 15 s and a thousand
// more customers made the embedded database run out of memory. Collections are now cut (100 elements, fewer when
// collections nest) and marked, and a request whose worst case passes the budget is refused before it runs.

const t = useTestApp()
let viewer = ''

beforeAll(async () => {
  await seedAccountsDemo(t.db.current.db)
  // 1,250 more customers under MAIN, each with a customer account: a seller with a big collection.
  await t.db.current.db.execute(sql`insert into customer (code, name, seller_id, creator)
    select 'BULK_' || lpad(g::text, 5, '0'), 'Bulk customer ' || g, (select id from seller where code = 'MAIN'), 'test'
    from generate_series(1, 1250) g`)
  await t.db.current.db.execute(sql`insert into customer_account (code, customer_id, creator)
    select 'CA_' || c.code, c.id, 'test' from customer c where c.code like 'BULK_%'`)
  viewer = await t.tokenWithRoles(['queryUser'])
})

const size = (body: unknown) => JSON.stringify(body).length

describe('collections written through nested and depth are cut and marked', () => {
  it('writes the first 100 customers of a seller by id and marks that more exist', async () => {
    const res = await t.requestAs(viewer, 'GET', '/api/v1/query/seller?filters={"code":"MAIN"}&nested=customers')
    expect(res.status).toBe(200)
    const seller = res.body.data[0]
    expect(seller.customers).toHaveLength(100)
    expect(seller.customersTruncated).toBe(true)
    const ids = (seller.customers as { id: number }[]).map((c) => c.id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    // The first 100 by id: the demo customers come first.
    expect(seller.customers[0].code).toBe('CUST_001')
  })

  it('writes no marker when a collection is complete', async () => {
    const res = await t.requestAs(
      viewer,
      'GET',
      '/api/v1/query/customer?filters={"code":"CUST_001"}&nested=customerAccounts',
    )
    expect(res.status).toBe(200)
    expect(res.body.data[0].customerAccounts).toHaveLength(1)
    expect(res.body.data[0]).not.toHaveProperty('customerAccountsTruncated')
  })

  it('cuts collections inside collections lower, so the page stays within budget', async () => {
    const res = await t.requestAs(
      viewer,
      'GET',
      '/api/v1/query/seller?filters={"code":"MAIN"}&nested=customers.customerAccounts&limit=100',
    )
    expect(res.status).toBe(200)
    // 100 sellers × (1 + n × (1 + n)) objects stays within 100,000 at n = 20, not at 50.
    const customers = res.body.data[0].customers as unknown[]
    expect(customers).toHaveLength(20)
    expect(res.body.data[0].customersTruncated).toBe(true)
    expect(size(res.body)).toBeLessThan(2_000_000)
  })
})

describe('a request that could expand past the budget is refused before it runs', () => {
  it.each([
    ['/api/v1/query/customer?limit=3&nested=seller&depth=5', 'depth'],
    ['/api/v1/query/customer?limit=1000&nested=seller&depth=5', 'depth'],
    ['/api/v1/query/walletInstance?nested=userAccount,walletOperations&depth=4', 'depth'],
    ['/api/v1/query/seller?limit=1000&nested=customers.customerAccounts.billingAccounts.userAccounts', 'nested'],
  ])('%s → 400 naming %s', async (url, parameter) => {
    const res = await t.requestAs(viewer, 'GET', url)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ errorCode: 'INVALID_PARAMETER', details: [{ field: parameter }] })
  })

  it('names the legacy body parameters in the POST dialect', async () => {
    const res = await t.requestAs(viewer, 'POST', '/api/v1/query/customer', {
      limit: 3,
      nestedEntities: ['seller'],
      nestedDepth: 5,
    })
    expect(res.status).toBe(400)
    expect(res.body.details[0].field).toBe('nestedDepth')
    expect(res.body.message).toMatch(/^nestedDepth: /)
  })

  it('answers the deepest request it accepts within a few megabytes', async () => {
    // The largest shape under the budget at depth 5 on a page of one.
    let accepted = 0
    for (const depth of [5, 4, 3, 2, 1]) {
      const res = await t.requestAs(viewer, 'GET', `/api/v1/query/customer?limit=1&nested=seller&depth=${depth}`)
      if (res.status === 200) {
        accepted = depth
        expect(size(res.body)).toBeLessThan(5_000_000)
        break
      }
      expect(res.status).toBe(400)
    }
    expect(accepted).toBeGreaterThan(0)
  })
})

describe('every entity a request reaches needs its view role (or queryUser)', () => {
  let billingOnly = ''
  beforeAll(async () => {
    billingOnly = await t.tokenWithRoles(['accounts.billingAccounts.view'])
  })

  it('reads billing accounts themselves', async () => {
    const res = await t.requestAs(billingOnly, 'GET', '/api/v1/query/billingAccount?fields=code,name&limit=2')
    expect(res.status).toBe(200)
    expect(res.body.data).toHaveLength(2)
  })

  const through = (query: string) => `/api/v1/query/billingAccount?${query}`
  it.each([
    ['fields', through('fields=code,customerAccount.customer.email'), 'CustomerAccount'],
    ['nested and depth', through('nested=customerAccount&depth=3'), 'CustomerAccount'],
    ['nested', through('nested=customerAccount'), 'CustomerAccount'],
    ['filters', through('filters=' + encodeURIComponent('{"customerAccount.customer.email":"x"}')), 'CustomerAccount'],
    [
      'filters in an OR set',
      through('filters=' + encodeURIComponent('{"likeCriterias code customerAccount.customer.name":"*a*"}')),
      'CustomerAccount',
    ],
    ['sortBy', through('sortBy=customerAccount.customer.code'), 'CustomerAccount'],
    [
      'groupBy',
      through('fields=customerAccount.customer.code,COUNT(id)&groupBy=customerAccount.customer.code'),
      'CustomerAccount',
    ],
    ['aggregates', through('fields=COUNT(customerAccount.customer.id)'), 'CustomerAccount'],
    ['a collection in fields', through('fields=code,userAccounts.code'), 'UserAccount'],
  ])('refuses a path through %s with 403 naming the entity and the role', async (_how, url, entity) => {
    const res = await t.requestAs(billingOnly, 'GET', url)
    expect(res.status).toBe(403)
    expect(res.body.message).toContain(`Reading ${entity} needs the role`)
  })

  it('names the first entity the caller may not read, one step further along a path', async () => {
    const both = await t.tokenWithRoles(['accounts.billingAccounts.view', 'accounts.customerAccounts.view'])
    const res = await t.requestAs(both, 'GET', through('fields=code,customerAccount.customer.email'))
    expect(res.status).toBe(403)
    expect(res.body.message).toBe('Reading Customer needs the role accounts.customers.view or queryUser')
  })

  it('refuses the same paths in the POST dialect and on count and get by id', async () => {
    const post = await t.requestAs(billingOnly, 'POST', '/api/v1/query/billingAccount', {
      genericFields: ['code', 'customerAccount.customer.email'],
    })
    expect(post.status).toBe(403)
    const count = await t.requestAs(
      billingOnly,
      'GET',
      through('filters=' + encodeURIComponent('{"customerAccount.customer.email":"x"}')).replace(
        'billingAccount?',
        'billingAccount/count?',
      ),
    )
    expect(count.status).toBe(403)
    const one = await t.requestAs(billingOnly, 'GET', '/api/v1/query/billingAccount?limit=1&fields=id')
    const get = await t.requestAs(
      billingOnly,
      'GET',
      `/api/v1/query/billingAccount/${one.body.data[0].id}?nested=customerAccount`,
    )
    expect(get.status).toBe(403)
  })

  it('checks again on a cached statement: the same shape by a caller without the role is refused', async () => {
    const url = through('fields=code,customerAccount.code&limit=1')
    const withRole = await t.tokenWithRoles(['accounts.billingAccounts.view', 'accounts.customerAccounts.view'])
    expect((await t.requestAs(withRole, 'GET', url)).status).toBe(200)
    expect((await t.requestAs(billingOnly, 'GET', url)).status).toBe(403)
  })
})
