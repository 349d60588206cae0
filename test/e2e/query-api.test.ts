import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import Fastify, { type FastifyInstance } from 'fastify'
import { sql } from 'drizzle-orm'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { installErrorHandling } from '../../src/kernel/http/error-handler.ts'
import { installRoutePolicy } from '../../src/kernel/http/route-policy.ts'
import { validatorCompiler } from '../../src/kernel/http/validation.ts'
import type { Principal } from '../../src/kernel/http/principal.ts'
import { registry } from '../../src/kernel/model/index.ts'
import { MAX_PREPARED_STATEMENTS, openPostgres } from '../../src/kernel/db/database.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { createQueryModule } from '../../src/modules/query/index.ts'
import { onPostgres, useTestDatabase } from '../support/test-database.ts'

/**
 * The Query API over HTTP: the documented parameters, envelopes, examples and errors (§2.4–§2.9, §4.1, §7.2,
 * DECISIONS "Query API"), roles and row-level security, on a server holding the demo data.
 */

const db = useTestDatabase()
let server: FastifyInstance

/** Test-only stand-in for the bearer token: the principal travels as JSON in this header. */
const PRINCIPAL_HEADER = 'x-test-principal'
type Who = { roles: string[]; sellerCodes?: string[] | null; username?: string; groups?: string[] }
const ADMIN: Who = { roles: ['queryUser', 'queryExpert'] }
const QUERY_USER: Who = { roles: ['queryUser'] }
const CUSTOMER_VIEWER: Who = { roles: ['accounts.customers.view'] }
const NOBODY: Who = { roles: ['some.unrelated.role'] }
const OTHER_SELLER_ONLY: Who = { roles: ['queryUser'], sellerCodes: ['OTHER'] }

const FIXTURES = [
  `insert into seller (code, description, parent_seller_id, creator) select 'OTHER', 'Another seller', id, 'test' from seller where code = 'MAIN'`,
  `insert into customer (code, name, seller_id, creator) select c.code, c.name, s.id, 'test' from seller s, (values ('CUST_X1', 'Xena Other'), ('CUST_X2', 'Yuri Other')) as c(code, name) where s.code = 'OTHER'`,
  `insert into customer_account (code, name, customer_id, creator) select 'CA_X1', 'Xena Other', id, 'test' from customer where code = 'CUST_X1'`,
  `insert into billing_account (code, name, customer_account_id, billing_cycle_id, country_id, language_id, trading_currency_id, creator)
     select 'BA_X1', 'Xena Other', ca.id, cyc.id, co.id, l.id, cur.id, 'test' from customer_account ca, billing_cycle cyc, country co, language l, trading_currency cur
     where ca.code = 'CA_X1' and cyc.code = 'CYC_MONTHLY' and co.code = 'FR' and l.code = 'ENG' and cur.code = 'EUR'`,
  `update customer set created = '2025-01-01T12:00:00Z'`,
  `update customer set created = '2026-03-01T00:00:00Z', updated = '2026-04-01T00:00:00Z' where code = 'CUST_001'`,
  `update customer set created = '2026-03-01T23:30:00Z', updated = '2026-03-15T00:00:00Z' where code = 'CUST_002'`,
  `update customer set created = '2026-03-02T00:00:00Z' where code = 'CUST_003'`,
  `update customer set created = '2026-02-28T23:59:59Z' where code = 'CUST_004'`,
]

beforeAll(async () => {
  await seedAccountsDemo(db.current.db)
  for (const statement of FIXTURES) await db.current.db.execute(sql.raw(statement))
  server = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } })
  server.setValidatorCompiler(validatorCompiler())
  installErrorHandling(server)
  installRoutePolicy(server)
  server.addHook('onRequest', async (request) => {
    const header = request.headers[PRINCIPAL_HEADER]
    if (typeof header !== 'string') return
    const who = JSON.parse(header) as Who
    const principal: Principal = {
      subject: 'test',
      username: who.username ?? 'test',
      clientId: undefined,
      roles: new Set(who.roles),
      groups: who.groups ?? [],
      sellerCodes: who.sellerCodes ?? null,
    }
    request.principal = principal
  })
  await createQueryModule({ database: db.current }).routes(server)
  await server.ready()
})

afterAll(async () => {
  await server.close()
})

afterEach(async () => {
  await db.current.db.execute(
    sql`update tenant_setting set time_zone = 'UTC', huge_volume_entities = '{}', extract_list_entities = '{}', default_list_limit = 100, query_statement_timeout_ms = 30000`,
  )
  forgetTenantSettings(db.current.db)
})

async function call(method: string, url: string, options: { who?: Who | null; body?: unknown } = {}) {
  const who = options.who === undefined ? ADMIN : options.who
  const response = await server.inject({
    method: method as 'GET',
    url,
    headers: who ? { [PRINCIPAL_HEADER]: JSON.stringify(who) } : {},
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  })
  return {
    status: response.statusCode,
    body: response.body ? JSON.parse(response.body) : undefined,
    headers: response.headers,
  }
}

const get = (url: string, who?: Who | null) => call('GET', url, { who })
const post = (url: string, body: unknown, who?: Who | null) => call('POST', url, { body, who })
const q = (filters: unknown) => encodeURIComponent(JSON.stringify(filters))
const codesOf = (body: { data: { code: string }[] }) => body.data.map((r) => r.code)

describe('GET /api/v1/query/{entity}: the list envelope and the parameters of §2.5', () => {
  it('answers total, limit, offset and data, sorted by id, 100 per page by default', async () => {
    const res = await get('/api/v1/query/customer')
    expect(res.status).toBe(200)
    expect(Object.keys(res.body)).toEqual(['total', 'limit', 'offset', 'data'])
    expect(res.body).toMatchObject({ total: 52, limit: 100, offset: 0 })
    expect(res.body.data).toHaveLength(52)
    expect(res.body.data.map((r: { id: number }) => r.id)).toEqual(
      [...res.body.data.map((r: { id: number }) => r.id)].sort((a, b) => a - b),
    )
    expect(res.body.data[0]).toMatchObject({
      code: 'CUST_001',
      name: 'Blaise Lovelace',
      seller: { id: 1 },
      cfValues: { CF_SEGMENT: [{ value: 'ENTERPRISE' }] },
    })
    expect(res.body.data[0].created).toBe('2026-03-01T00:00:00.000Z')
    expect(res.body.data[0]).not.toHaveProperty('customerAccounts')
  })

  it('resolves the entity from its camelCase or simple class name, in any case', async () => {
    for (const token of [
      'billingAccount',
      'BillingAccount',
      'billingaccount',
      'org.obol.model.billing.BillingAccount',
    ]) {
      const res = await get(`/api/v1/query/${token}?limit=1`)
      expect(res.status, token).toBe(200)
      expect(res.body.total).toBe(51)
    }
  })

  it('echoes the filters it was sent', async () => {
    const filters = { 'inList code': ['CUST_001', 'CUST_002'], $operator: 'AND' }
    const res = await get(`/api/v1/query/customer?filters=${q(filters)}`)
    expect(res.body.filters).toEqual(filters)
    expect(res.body.total).toBe(2)
  })

  it('projects fields, id always included, dotted paths as objects holding only the requested leaves', async () => {
    const res = await get(
      '/api/v1/query/billingAccount?fields=code,customerAccount.code,customerAccount.customer.name&limit=1',
    )
    expect(res.body.data).toEqual([
      { id: 1, code: 'BA_001', customerAccount: { code: 'CA_001', customer: { name: 'Blaise Lovelace' } } },
    ])
    const plain = await get('/api/v1/query/customer?fields=name,seller&limit=1')
    expect(plain.body.data).toEqual([{ id: 1, name: 'Blaise Lovelace', seller: { id: 1 } }])
  })

  it('writes nested relations in full and the others as { id }; collections only when nested', async () => {
    const res = await get('/api/v1/query/billingAccount?nested=customerAccount&limit=1')
    const ba = res.body.data[0]
    expect(ba.customerAccount).toMatchObject({ id: 1, code: 'CA_001', name: 'Blaise Lovelace', customer: { id: 1 } })
    expect(ba.customerAccount).not.toHaveProperty('billingAccounts')
    expect(ba.billingCycle).toEqual({ id: 1 })
    const deeper = await get('/api/v1/query/billingAccount?nested=customerAccount,customerAccount.customer&limit=1')
    expect(deeper.body.data[0].customerAccount.customer).toMatchObject({ code: 'CUST_001', seller: { id: 1 } })
    const collection = await get('/api/v1/query/customer?nested=customerAccounts&fields=code&limit=2')
    expect(collection.body.data[0].customerAccounts).toEqual([
      expect.objectContaining({ code: 'CA_001', customer: { id: 1 } }),
    ])
  })

  it('expands depth further levels of relations and collections below each nested one', async () => {
    const res = await get('/api/v1/query/billingAccount?nested=customerAccount&depth=1&limit=1')
    const ca = res.body.data[0].customerAccount
    expect(ca.customer).toMatchObject({ code: 'CUST_001', seller: { id: 1 } })
    expect(ca.tradingCurrency).toMatchObject({ code: 'EUR' })
    expect(ca.billingAccounts).toEqual([expect.objectContaining({ code: 'BA_001', customerAccount: { id: 1 } })])
    const none = await get('/api/v1/query/billingAccount?depth=2&limit=1')
    expect(none.body.data[0].customerAccount).toEqual({ id: 1 })
  })

  it('pages with offset and limit; limit is capped at 1000 and its default comes from the tenant setting', async () => {
    const page = await get('/api/v1/query/customer?offset=10&limit=5&fields=code')
    expect(page.body).toMatchObject({ total: 52, offset: 10, limit: 5 })
    expect(codesOf(page.body)).toEqual(['CUST_011', 'CUST_012', 'CUST_013', 'CUST_014', 'CUST_015'])
    expect((await get('/api/v1/query/customer?limit=5000&fields=code')).body.limit).toBe(1000)
    await db.current.db.execute(sql`update tenant_setting set default_list_limit = 7`)
    forgetTenantSettings(db.current.db)
    const byDefault = await get('/api/v1/query/customer?fields=code')
    expect(byDefault.body.limit).toBe(7)
    expect(byDefault.body.data).toHaveLength(7)
  })

  it('sorts by sortBy (dotted paths too) then id, in ASC, DESC, ASCENDING or DESCENDING of any case', async () => {
    const desc = await get(
      '/api/v1/query/billingAccount?sortBy=customerAccount.customer.code&sortOrder=descending&fields=code&limit=3',
    )
    expect(codesOf(desc.body)).toEqual(['BA_X1', 'BA_050', 'BA_049'])
    for (const order of ['ASC', 'asc', 'Ascending', 'DESC', 'desc', 'DESCENDING']) {
      const res = await get(`/api/v1/query/customer?sortBy=name&sortOrder=${order}&fields=name&limit=60`)
      expect(res.status, order).toBe(200)
      const names = res.body.data.map((r: { name: string }) => r.name)
      const sorted = [...names].sort()
      expect(names).toEqual(order.toUpperCase().startsWith('DESC') ? sorted.reverse() : sorted)
    }
    const ties = await get('/api/v1/query/customer?sortBy=name&fields=name&filters=' + q({ name: 'Blaise Lovelace' }))
    expect(ties.body.data.map((r: { id: number }) => r.id)).toEqual([1])
  })

  it('rejects any other sortOrder with 400 and the document message', async () => {
    const res = await get('/api/v1/query/customer?sortOrder=sideways')
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      status: 'FAIL',
      errorCode: 'INVALID_PARAMETER',
      code: 'INVALID_PARAMETER',
      message: 'Invalid sortOrder sideways, expected one of ASC, DESC, ASCENDING, DESCENDING',
      details: [
        { field: 'sortOrder', message: 'Invalid sortOrder sideways, expected one of ASC, DESC, ASCENDING, DESCENDING' },
      ],
    })
  })

  it('joins related entities INNER by default, LEFT or RIGHT on request, and rejects other join types', async () => {
    const filters = q({ 'parentSeller.code': 'IS_NULL' })
    expect(codesOf((await get(`/api/v1/query/seller?filters=${filters}`)).body)).toEqual([])
    expect(codesOf((await get(`/api/v1/query/seller?filters=${filters}&joinType=left`)).body)).toEqual(['MAIN'])
    const right = await get(
      `/api/v1/query/seller?filters=${q({ 'parentSeller.code': 'MAIN' })}&joinType=RIGHT&fields=code`,
    )
    expect(codesOf(right.body)).toEqual(['OTHER'])
    const bad = await get('/api/v1/query/seller?joinType=OUTER')
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({
      errorCode: 'INVALID_PARAMETER',
      message: 'Invalid joinType OUTER, expected one of INNER, LEFT, RIGHT',
    })
  })

  it('drops the fields named in excluding, after fields and nested are resolved', async () => {
    const res = await get(
      '/api/v1/query/billingAccount?nested=customerAccount&excluding=description,cfValues,customerAccount.description&limit=1',
    )
    const ba = res.body.data[0]
    expect(ba).not.toHaveProperty('description')
    expect(ba).not.toHaveProperty('cfValues')
    expect(ba.customerAccount).not.toHaveProperty('description')
    expect(ba.customerAccount.code).toBe('CA_001')
    expect((await get('/api/v1/query/customer?excluding=colour')).status).toBe(400)
  })

  it('answers a bad parameter with 400, never 500', async () => {
    for (const url of [
      '/api/v1/query/customer?limit=-1',
      '/api/v1/query/customer?offset=x',
      '/api/v1/query/customer?depth=9',
      '/api/v1/query/customer?colour=red',
    ]) {
      const res = await get(url)
      expect(res.status, url).toBe(400)
    }
  })
})

describe('filters over HTTP (§2.6, DECISIONS)', () => {
  it('answers malformed filters JSON, an unknown field and a wrong value type with 400 INVALID_FILTER naming the key', async () => {
    const malformed = await get('/api/v1/query/customer?filters=%7B%22code%22')
    expect(malformed.status).toBe(400)
    expect(malformed.body).toMatchObject({ errorCode: 'INVALID_FILTER', code: 'INVALID_FILTER' })
    const unknown = await get(`/api/v1/query/customer?filters=${q({ 'ne colour': 'red' })}`)
    expect(unknown.body).toMatchObject({
      errorCode: 'INVALID_FILTER',
      message: "filters: 'ne colour': colour is not a field or relation of Customer",
    })
    const type = await get(`/api/v1/query/invoiceCategory?filters=${q({ sortIndex: 'two' })}`)
    expect(type.body).toMatchObject({
      errorCode: 'INVALID_FILTER',
      message: "filters: 'sortIndex': expected an integer",
    })
    const notObject = await get(`/api/v1/query/customer?filters=${q(['code'])}`)
    expect(notObject.body).toMatchObject({ errorCode: 'INVALID_FILTER', message: 'filters: expected a JSON object' })
    // The POST dialect answers the same for filters that are not an object.
    for (const filters of [['code'], 42, true]) {
      const posted = await post('/api/v1/query/customer', { filters })
      expect(posted.status).toBe(400)
      expect(posted.body).toMatchObject({ errorCode: 'INVALID_FILTER', message: 'filters: expected a JSON object' })
    }
    expect((await post('/api/v1/query/customer/count', { filters: '{"code":"CUST_001"}' })).body).toEqual({ total: 1 })
  })

  it('reads $operator and $filter<N> in any case', async () => {
    const lower = {
      $operator: 'or',
      code: 'CUST_001',
      name: 'hugo pascal',
      $filter1: { $operator: 'or', code: 'CUST_00*', 'fromRange created': '2030-01-01' },
    }
    const upper = {
      $OPERATOR: 'OR',
      code: 'CUST_001',
      name: 'hugo pascal',
      $FILTER1: { $OPERATOR: 'OR', code: 'CUST_00*', 'fromRange created': '2030-01-01' },
    }
    const a = await get(`/api/v1/query/customer?fields=code&filters=${q(lower)}`)
    const b = await get(`/api/v1/query/customer?fields=code&filters=${q(upper)}`)
    expect(codesOf(a.body)).toEqual(['CUST_001', 'CUST_007'])
    expect(codesOf(b.body)).toEqual(codesOf(a.body))
  })

  it('reads a day in the tenant time zone', async () => {
    const filters = q({ created: '2026-03-01' })
    expect(codesOf((await get(`/api/v1/query/customer?fields=code&filters=${filters}`)).body)).toEqual([
      'CUST_001',
      'CUST_002',
    ])
    await db.current.db.execute(sql`update tenant_setting set time_zone = 'Europe/Paris'`)
    forgetTenantSettings(db.current.db)
    // 1 March in Paris runs from 28 February 23:00 to 1 March 23:00 UTC.
    expect(codesOf((await get(`/api/v1/query/customer?fields=code&filters=${filters}`)).body)).toEqual([
      'CUST_001',
      'CUST_004',
    ])
    const inclusive = q({ 'toRangeInclusive created': '2026-02-28', 'fromRange created': '2026-01-01' })
    expect(codesOf((await get(`/api/v1/query/customer?fields=code&filters=${inclusive}`)).body)).toEqual([])
  })

  it('filters on custom fields (§2.7), also through a relation', async () => {
    const res = await get(
      `/api/v1/query/billingAccount?fields=code&filters=${q({ 'customerAccount.customer.cfValues': { CF_EMPLOYEES: [{ value: 120 }] } })}`,
    )
    expect(codesOf(res.body)).toEqual(['BA_012'])
  })

  it('answers 403 to SQL filters without queryExpert, 200 with it', async () => {
    const filters = q({ SQL: "a.code = 'CUST_003'" })
    expect((await get(`/api/v1/query/customer?filters=${filters}`, QUERY_USER)).status).toBe(403)
    expect(codesOf((await get(`/api/v1/query/customer?filters=${filters}&fields=code`, ADMIN)).body)).toEqual([
      'CUST_003',
    ])
  })

  it('refuses a raw SQL fragment that would lock rows before it runs', async () => {
    const res = await get(`/api/v1/query/customer?filters=${q({ SQL: 'exists (select 1 from customer c for share)' })}`)
    expect(res.status).toBe(400)
    expect(res.body.message).toContain('may not lock rows')
  })

  it.runIf(onPostgres)('stops a statement at the tenant statement timeout on PostgreSQL', async () => {
    await db.current.db.execute(sql`update tenant_setting set query_statement_timeout_ms = 200`)
    forgetTenantSettings(db.current.db)
    const slow = q({
      'inSqlList id': 'select count(*) from customer c1, customer c2, customer c3, customer c4, customer c5',
    })
    const res = await get(`/api/v1/query/customer?filters=${slow}`)
    expect(res.status).toBe(503)
    expect(res.body.message).toContain('statement timeout')
  })
})

describe('POST /api/v1/query/{entity}: the legacy body names (§4.1, §9)', () => {
  it('takes filters, genericFields, nestedEntities, nestedDepth, limit, offset, sortBy and sortOrder', async () => {
    const res = await post('/api/v1/query/billingAccount', {
      filters: { 'customerAccount.customer.code': 'CUST_00*' },
      genericFields: ['code', 'customerAccount'],
      nestedEntities: ['customerAccount'],
      nestedDepth: 1,
      limit: 2,
      offset: 1,
      sortBy: 'code',
      sortOrder: 'DESC',
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      total: 9,
      limit: 2,
      offset: 1,
      filters: { 'customerAccount.customer.code': 'CUST_00*' },
    })
    expect(codesOf(res.body)).toEqual(['BA_008', 'BA_007'])
    expect(res.body.data[0].customerAccount.customer).toMatchObject({ code: 'CUST_008' })
  })

  it('takes groupBy and having as arrays', async () => {
    const res = await post('/api/v1/query/billingAccount', {
      genericFields: ['country.code', 'COUNT(id)'],
      groupBy: ['country.code'],
      having: ['COUNT(id) > 12'],
    })
    expect(res.body.data).toEqual([
      { 'country.code': 'DE', 'COUNT(id)': 13 },
      { 'country.code': 'FR', 'COUNT(id)': 13 },
      { 'country.code': 'US', 'COUNT(id)': 13 },
    ])
  })

  it('refuses body fields it does not know, naming them', async () => {
    const res = await post('/api/v1/query/customer', { colour: 'code' })
    expect(res.status).toBe(400)
    expect(res.body.details[0].field).toBe('colour')
    expect(res.body.details[0].message).toMatch(/^is not a known field/)
  })

  it('keeps decimals of the body exact', async () => {
    const res = await server.inject({
      method: 'POST',
      url: '/api/v1/query/unitOfMeasure',
      headers: { [PRINCIPAL_HEADER]: JSON.stringify(ADMIN), 'content-type': 'application/json' },
      payload: '{"filters": {"fromRangeExclusive multiplicator": 1023.99999999999999999}, "genericFields": ["code"]}',
    })
    expect(res.body).toBe(
      '{"total":1,"limit":100,"offset":0,"filters":{"fromRangeExclusive multiplicator":1023.99999999999999999},"data":[{"id":3,"code":"GB"}]}',
    )
  })

  it('answers the legacy generic endpoint with the same semantics', async () => {
    const body = { filters: { code: 'CUST_01*' }, genericFields: ['code'], limit: 3 }
    const legacy = await post('/api/rest/v2/generic/all/customer', body)
    expect(legacy.status).toBe(200)
    expect(legacy.body).toEqual((await post('/api/v1/query/customer', body)).body)
    expect(codesOf(legacy.body)).toEqual(['CUST_010', 'CUST_011', 'CUST_012'])
  })

  it('answers a malformed body with 400', async () => {
    const res = await server.inject({
      method: 'POST',
      url: '/api/v1/query/customer',
      headers: { [PRINCIPAL_HEADER]: JSON.stringify(ADMIN), 'content-type': 'application/json' },
      payload: '{"filters": ',
    })
    expect(res.statusCode).toBe(400)
    expect(JSON.parse(res.body)).toMatchObject({ errorCode: 'MALFORMED_JSON', code: 'MALFORMED_JSON' })
  })
})

describe('count and get by id', () => {
  it('counts with filters, in both dialects', async () => {
    expect((await get('/api/v1/query/customer/count')).body).toEqual({ total: 52 })
    expect((await get(`/api/v1/query/customer/count?filters=${q({ seller: 'OTHER' })}`)).body).toEqual({ total: 2 })
    expect((await post('/api/v1/query/customer/count', { filters: { code: 'CUST_00*' } })).body).toEqual({ total: 9 })
  })

  it('gets one entity with the projection parameters', async () => {
    const res = await get('/api/v1/query/customer/7?fields=code,name')
    expect(res.body).toEqual({ data: { id: 7, code: 'CUST_007', name: 'Hugo Pascal' } })
    const nested = await post('/api/v1/query/customerAccount/7', { nestedEntities: ['customer'] })
    expect(nested.body.data.customer).toMatchObject({ id: 7, code: 'CUST_007' })
  })

  it('answers 404 with the document message when the id does not resolve', async () => {
    const res = await get('/api/v1/query/customer/999999')
    expect(res.status).toBe(404)
    expect(res.body).toEqual({
      status: 'FAIL',
      errorCode: 'NOT_FOUND',
      code: 'NOT_FOUND',
      message: 'entity customer with id 999999 not found',
    })
    expect((await get('/api/v1/query/customer/seven')).status).toBe(400)
  })
})

describe('aggregation (§2.8)', () => {
  it('groups, keys each object by the literal expressions, and counts groups in total', async () => {
    const res = await get(
      '/api/v1/query/billingAccount?fields=country.code,COUNT(id),MAX(created)&groupBy=country.code',
    )
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(4)
    expect(res.body.data.map((r: Record<string, unknown>) => [r['country.code'], r['COUNT(id)']])).toEqual([
      ['DE', 13],
      ['FR', 13],
      ['GB', 12],
      ['US', 13],
    ])
    expect(Object.keys(res.body.data[0])).toEqual(['country.code', 'COUNT(id)', 'MAX(created)'])
  })

  it('filters groups with having', async () => {
    const res = await get(
      `/api/v1/query/billingAccount?fields=country.code,count(id)&groupBy=country.code&having=${encodeURIComponent('count(id) < 13')}`,
    )
    expect(res.body).toMatchObject({ total: 1, data: [{ 'country.code': 'GB', 'count(id)': 12 }] })
  })

  it('aggregates decimals exactly, with COALESCE(SUM( and without grouping', async () => {
    const res = await get(
      `/api/v1/query/unitOfMeasure?fields=${encodeURIComponent('SUM(multiplicator),COUNT(*),MIN(code),AVG(multiplicator),COALESCE(SUM(multiplicator),0)')}`,
    )
    expect(res.body.total).toBe(1)
    expect(res.body.data[0]).toMatchObject({
      'SUM(multiplicator)': 1087,
      'COUNT(*)': 5,
      'MIN(code)': 'GB',
      'COALESCE(SUM(multiplicator),0)': 1087,
    })
    const empty = await get(
      `/api/v1/query/unitOfMeasure?fields=${encodeURIComponent('COALESCE(SUM(multiplicator), 0),SUM(multiplicator)')}&filters=${q({ code: 'NONE' })}`,
    )
    expect(empty.body.data).toEqual([{ 'COALESCE(SUM(multiplicator), 0)': 0, 'SUM(multiplicator)': null }])
  })

  it('sorts groups by an aggregation and pages them', async () => {
    const res = await get(
      '/api/v1/query/billingAccount?fields=country.code,COUNT(id)&groupBy=country.code&sortBy=COUNT(id)&sortOrder=ASC&limit=1',
    )
    expect(res.body).toMatchObject({ total: 4, limit: 1, data: [{ 'country.code': 'GB' }] })
  })

  it('rejects a plain field that is neither grouped nor aggregated, and a bad having', async () => {
    expect((await get('/api/v1/query/billingAccount?fields=code,COUNT(id)')).body.message).toBe(
      'fields: code must be listed in groupBy, or aggregated',
    )
    const having = await get(
      `/api/v1/query/billingAccount?fields=COUNT(id)&having=${encodeURIComponent('COUNT(id) >> 1')}`,
    )
    expect(having.status).toBe(400)
    expect((await get('/api/v1/query/billingAccount?fields=SUM(code)')).status).toBe(400)
  })
})

describe('huge-volume entities and extractList (§2.9)', () => {
  it('counts every entity by default, with or without forceCount', async () => {
    expect((await get('/api/v1/query/customer?limit=1')).body.total).toBe(52)
    expect((await get('/api/v1/query/customer?limit=1&forceCount=true')).body.total).toBe(52)
  })

  it('skips the count of an entity the tenant lists as huge-volume unless forceCount', async () => {
    await db.current.db.execute(sql`update tenant_setting set huge_volume_entities = '{Customer}'`)
    forgetTenantSettings(db.current.db)
    const skipped = await get('/api/v1/query/customer?limit=2')
    expect(skipped.body).not.toHaveProperty('total')
    expect(skipped.body.data).toHaveLength(2)
    expect((await get('/api/v1/query/customer?limit=2&forceCount=true')).body.total).toBe(52)
    expect((await get('/api/v1/query/customer/count')).body.total).toBe(52)
    expect((await get('/api/v1/query/seller')).body.total).toBe(2)
  })

  it('answers the bare array with extractList, by request or by tenant setting', async () => {
    const bare = await get('/api/v1/query/country?fields=code&extractList=true')
    expect(bare.body).toEqual([
      { id: 1, code: 'FR' },
      { id: 2, code: 'DE' },
      { id: 3, code: 'US' },
      { id: 4, code: 'GB' },
    ])
    await db.current.db.execute(sql`update tenant_setting set extract_list_entities = '{Country}'`)
    forgetTenantSettings(db.current.db)
    expect(Array.isArray((await get('/api/v1/query/country')).body)).toBe(true)
    expect((await get('/api/v1/query/country?extractList=false')).body.total).toBe(4)
    expect(Array.isArray((await get('/api/v1/query/language')).body)).toBe(false)
  })
})

describe('entities and field mapping', () => {
  const queryable = registry.queryable()

  it('lists the entity names, subclasses included, never the entities holding secrets', async () => {
    const res = await get('/api/v1/query/entities')
    const subclasses = queryable.flatMap((e) => Object.keys(e.inheritance?.subclasses ?? {}))
    const expected = [...queryable.map((e) => e.name), ...subclasses].sort((a, b) => a.localeCompare(b))
    expect(subclasses).toEqual(expect.arrayContaining(['CalendarPeriod', 'CalendarYearly']))
    expect(res.body).toEqual({ entities: expected })
    for (const secret of registry.entities.filter((e) => !e.queryable))
      expect(res.body.entities).not.toContain(secret.name)
  })

  it('filters business and huge entities, and gives full names on request', async () => {
    const business = await get('/api/v1/query/entities?onlyBusinessEntities=true')
    expect(business.body.entities).toEqual(
      queryable
        .filter((e) => e.business)
        .map((e) => e.name)
        .sort((a, b) => a.localeCompare(b)),
    )
    expect(business.body.entities).toContain('BillingAccount')
    const huge = await get('/api/v1/query/entities?onlyHugeEntities=true')
    expect(huge.body.entities).toEqual(
      queryable
        .filter((e) => e.huge)
        .map((e) => e.name)
        .sort((a, b) => a.localeCompare(b)),
    )
    // The report builder's list: the platform's own records (clients, audits, settings) left out, reference data kept.
    const reportable = await get('/api/v1/query/entities?withoutPlatformEntities=true')
    expect(reportable.body.entities).toEqual(
      [
        ...queryable.filter((e) => !e.platform).map((e) => e.name),
        ...queryable.filter((e) => !e.platform).flatMap((e) => Object.keys(e.inheritance?.subclasses ?? {})),
      ].sort((a, b) => a.localeCompare(b)),
    )
    expect(reportable.body.entities).toEqual(expect.arrayContaining(['Customer', 'Tax', 'WalletOperation']))
    for (const internal of ['OauthClient', 'QueryAudit', 'TenantSetting'])
      expect(reportable.body.entities).not.toContain(internal)
    const full = await get('/api/v1/query/entities?withFullName=true&onlyBusinessEntities=true')
    expect(full.body.entities).toContainEqual({
      name: 'BillingAccount',
      fullName: 'org.obol.model.billing.BillingAccount',
    })
  })

  it('lists only what the caller may read, and answers 403 to a caller who may read nothing', async () => {
    const res = await get('/api/v1/query/entities', CUSTOMER_VIEWER)
    expect(res.body.entities).toEqual(['Customer', 'Seller'])
    expect((await get('/api/v1/query/entities', NOBODY)).status).toBe(403)
  })

  it('describes an entity field mapping with javaField, javaType and only the applicable flags', async () => {
    const res = await get('/api/v1/query/entities/billingAccount')
    expect(res.status).toBe(200)
    expect(res.body.javaName).toBe('org.obol.model.billing.BillingAccount')
    expect(res.body.tableName).toBe('billing_account')
    expect(res.body.fields).toContainEqual({
      javaField: 'id',
      javaType: 'java.lang.Long',
      columnName: 'id',
      nullable: false,
    })
    expect(res.body.fields).toContainEqual({
      javaField: 'description',
      javaType: 'java.lang.String',
      columnName: 'description',
    })
    expect(res.body.fields).toContainEqual({
      javaField: 'created',
      javaType: 'java.time.Instant',
      columnName: 'created',
      nullable: false,
    })
    expect(res.body.fields).toContainEqual({
      javaField: 'customerAccount',
      javaType: 'org.obol.model.payments.CustomerAccount',
      columnName: 'customer_account_id',
      nullable: false,
      isFK: true,
      isAssociation: true,
    })
    expect(res.body.fields).toContainEqual({
      javaField: 'userAccounts',
      javaType: 'java.util.List',
      isAssociation: true,
    })
    const calendar = await get('/api/v1/query/entities/Calendar')
    expect(calendar.body.fields).toContainEqual({
      javaField: 'referenceDate',
      javaType: 'java.time.LocalDate',
      columnName: 'reference_date',
    })
  })

  it('answers an unknown entity with 404 ENTITY_NOT_FOUND naming it, on every route', async () => {
    const mapping = await get('/api/v1/query/entities/nope')
    expect(mapping.status).toBe(404)
    expect(mapping.body).toEqual({
      status: 'FAIL',
      errorCode: 'ENTITY_NOT_FOUND',
      code: 'ENTITY_NOT_FOUND',
      message: 'Entity nope not found',
    })
    for (const [method, url] of [
      ['GET', '/api/v1/query/nope'],
      ['POST', '/api/v1/query/nope'],
      ['GET', '/api/v1/query/nope/count'],
      ['GET', '/api/v1/query/nope/1'],
      ['POST', '/api/rest/v2/generic/all/nope'],
    ] as const) {
      const res = await call(method, url, { body: method === 'POST' ? {} : undefined })
      expect(res.status, url).toBe(404)
      expect(res.body).toMatchObject({ code: 'ENTITY_NOT_FOUND', message: 'Entity nope not found' })
    }
  })

  it('treats entities holding secrets as nonexistent', async () => {
    for (const secret of registry.entities.filter((e) => !e.queryable)) {
      for (const url of [
        `/api/v1/query/${secret.token}`,
        `/api/v1/query/entities/${secret.token}`,
        `/api/v1/query/${secret.token}/count`,
      ]) {
        expect((await get(url)).status, url).toBe(404)
      }
    }
    const users = await get('/api/v1/query/entities/appUser')
    expect(users.body.fields.map((f: { javaType: string }) => f.javaType)).not.toContain(
      'org.obol.model.security.UserCredential',
    )
  })
})

describe('every entity of the registry', () => {
  it.each(registry.queryable().map((e) => [e.name, e] as const))(
    '%s is queryable: list, count, get and field mapping',
    async (_name, entity) => {
      const list = await get(`/api/v1/query/${entity.token}?limit=1`)
      expect(list.status, JSON.stringify(list.body)).toBe(200)
      const count = await get(`/api/v1/query/${entity.token}/count`)
      expect(count.body.total).toBe(list.body.total)
      const all = await get(
        `/api/v1/query/${entity.token}?nested=${[...entity.relations.values()]
          .filter((r) => registry.get(r.target).queryable)
          .map((r) => r.name)
          .join(',')}&depth=1&limit=5`,
      )
      expect(all.status, JSON.stringify(all.body)).toBe(200)
      if (list.body.data[0]) {
        const one = await get(`/api/v1/query/${entity.token}/${encodeURIComponent(String(list.body.data[0].id))}`)
        expect(one.body.data).toEqual(list.body.data[0])
      }
      expect((await get(`/api/v1/query/entities/${entity.token}`)).status).toBe(200)
    },
  )

  it('serves subclasses, restricted to their discriminator', async () => {
    expect(codesOf((await get('/api/v1/query/calendarPeriod?fields=code')).body)).toEqual([
      'MONTHLY',
      'QUARTERLY',
      'WEEKLY',
    ])
    expect(codesOf((await get('/api/v1/query/CalendarYearly?fields=code')).body)).toEqual(['YEARLY_HALVES'])
    expect((await get('/api/v1/query/entities/calendarYearly')).body.javaName).toBe(
      'org.obol.model.catalog.CalendarYearly',
    )
  })
})

describe('the Query API is read-only', () => {
  it.each([
    ['PUT', '/api/v1/query/customer'],
    ['PATCH', '/api/v1/query/customer'],
    ['DELETE', '/api/v1/query/customer'],
    ['DELETE', '/api/v1/query/customer/1'],
    ['PUT', '/api/v1/query/customer/1'],
    ['PATCH', '/api/v1/query/customer/count'],
    ['DELETE', '/api/v1/query/entities'],
    ['POST', '/api/v1/query/entities/customer'],
    ['DELETE', '/api/rest/v2/generic/all/customer'],
  ])('answers %s %s with 405 JSON', async (method, url) => {
    const body = method === 'DELETE' ? undefined : {}
    expect((await call(method, url, { who: null, body })).status).toBe(401)
    expect((await call(method, url, { who: NOBODY, body })).status).toBe(403)
    const res = await call(method, url, { body })
    expect(res.status).toBe(405)
    expect(res.body).toMatchObject({ status: 'FAIL', errorCode: 'METHOD_NOT_ALLOWED', code: 'METHOD_NOT_ALLOWED' })
    expect(res.headers.allow).toBeDefined()
  })

  it('changes no row', async () => {
    expect((await call('DELETE', '/api/v1/query/customer/1')).status).toBe(405)
    expect((await get('/api/v1/query/customer/1?fields=code')).body.data.code).toBe('CUST_001')
  })
})

describe('roles and row-level security', () => {
  it('needs a principal, then the view role of the entity resource or queryUser', async () => {
    expect((await get('/api/v1/query/customer', null)).status).toBe(401)
    const forbidden = await get('/api/v1/query/customer', NOBODY)
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toMatchObject({
      errorCode: 'FORBIDDEN',
      message: 'Reading Customer needs the role accounts.customers.view or queryUser',
    })
    expect((await get('/api/v1/query/customer', CUSTOMER_VIEWER)).status).toBe(200)
    expect((await get('/api/v1/query/billingAccount', CUSTOMER_VIEWER)).status).toBe(403)
    expect((await get('/api/v1/query/entities/billingAccount', CUSTOMER_VIEWER)).status).toBe(403)
    expect((await get('/api/v1/query/billingAccount', QUERY_USER)).status).toBe(200)
  })

  it('shows a seller-restricted caller only the business entities of its sellers, everywhere', async () => {
    const who = OTHER_SELLER_ONLY
    expect(codesOf((await get('/api/v1/query/customer?fields=code', who)).body)).toEqual(['CUST_X1', 'CUST_X2'])
    expect(codesOf((await get('/api/v1/query/seller?fields=code', who)).body)).toEqual(['OTHER'])
    expect((await get('/api/v1/query/billingAccount/count', who)).body).toEqual({ total: 1 })
    expect((await get('/api/v1/query/customer/1', who)).status).toBe(404)
    expect((await get('/api/v1/query/customer/51?fields=code', who)).body.data.code).toBe('CUST_X1')
    const aggregated = await get('/api/v1/query/billingAccount?fields=country.code,COUNT(id)&groupBy=country.code', who)
    expect(aggregated.body).toMatchObject({ total: 1, data: [{ 'country.code': 'FR', 'COUNT(id)': 1 }] })
    // MAIN is OTHER's parent, but not one of the caller's sellers: the nested object is hidden.
    const nested = await get('/api/v1/query/seller?nested=parentSeller,customers', who)
    expect(nested.body.data[0].parentSeller).toBeNull()
    expect(nested.body.data[0].customers.map((c: { code: string }) => c.code)).toEqual(['CUST_X1', 'CUST_X2'])
    const collection = await get(`/api/v1/query/seller?filters=${q({ 'customers.code': 'CUST_001' })}`, who)
    expect(collection.body.total).toBe(0)
    expect((await get('/api/v1/query/country', who)).body.total).toBe(4)
    expect((await get('/api/v1/query/customer', { roles: ['queryUser'], sellerCodes: [] })).body.total).toBe(0)
  })
})

describe('compiled statements, reused per request shape', () => {
  it("never carries one caller's seller restriction to another caller sending the same request", async () => {
    // The same roles, so only the seller restriction tells the two callers apart.
    const url = '/api/v1/query/customer?fields=code&sortBy=code'
    expect((await get(url, QUERY_USER)).body.total).toBe(52)
    expect(codesOf((await get(url, OTHER_SELLER_ONLY)).body)).toEqual(['CUST_X1', 'CUST_X2'])
    expect((await get(url, QUERY_USER)).body.total).toBe(52)
    expect((await get(url.replace('?', '/count?'), QUERY_USER)).body).toEqual({ total: 52 })
    expect((await get(url.replace('?', '/count?'), OTHER_SELLER_ONLY)).body).toEqual({ total: 2 })
  })

  it('answers each id of a get by id with its own entity, and 404 for a missing one', async () => {
    const code = async (id: string, who?: Who) => {
      const res = await get(`/api/v1/query/customer/${id}?fields=code`, who)
      return res.status === 200 ? (res.body as { data: { code: string } }).data.code : res.status
    }
    expect(await code('1')).toBe('CUST_001')
    expect(await code('2')).toBe('CUST_002')
    expect(await code('0051')).toBe('CUST_X1')
    expect(await code('999999')).toBe(404)
    expect(await code('1', QUERY_USER)).toBe('CUST_001')
    expect(await code('1', OTHER_SELLER_ONLY)).toBe(404)
    expect(await code('51', OTHER_SELLER_ONLY)).toBe('CUST_X1')
    expect(await code('1', QUERY_USER)).toBe('CUST_001')
  })

  it('keeps a statement under a row policy to its viewer: saved query visibility', async () => {
    await db.current.db
      .execute(sql`insert into report_query (code, target_entity, visibility, query_type, owner_groups, creator)
      values ('Q_ALICE_PRIVATE', 'customer', 'PRIVATE', 'VISUAL', '{}', 'alice'),
             ('Q_TEAM_PROTECTED', 'customer', 'PROTECTED', 'VISUAL', '{team}', 'alice')`)
    try {
      const url = `/api/v1/query/reportQuery?fields=code&sortBy=code&filters=${q({ 'likeCriterias code': 'Q_*' })}`
      const seen = async (who: Who) => codesOf((await get(url, who)).body)
      const alice = { roles: ['queryUser'], username: 'alice' }
      const bob = { roles: ['queryUser'], username: 'bob' }
      const teammate = { roles: ['queryUser'], username: 'carol', groups: ['team'] }
      const manager = { roles: ['queryUser', 'queryManagement'], username: 'dave' }
      expect(await seen(alice)).toEqual(['Q_ALICE_PRIVATE', 'Q_TEAM_PROTECTED'])
      expect(await seen(bob)).toEqual([])
      expect(await seen(teammate)).toEqual(['Q_TEAM_PROTECTED'])
      expect(await seen(manager)).toEqual(['Q_ALICE_PRIVATE', 'Q_TEAM_PROTECTED'])
      expect(await seen(alice)).toEqual(['Q_ALICE_PRIVATE', 'Q_TEAM_PROTECTED'])
      expect(await seen(bob)).toEqual([])
    } finally {
      await db.current.db.execute(sql`delete from report_query where code in ('Q_ALICE_PRIVATE', 'Q_TEAM_PROTECTED')`)
    }
  })

  it('reads custom field templates on every request: a changed template applies at once', async () => {
    const url = `/api/v1/query/customer?fields=code&filters=${q({ cfValues: { CF_EMPLOYEES: [{ value: 120 }] } })}`
    expect((await get(url)).status).toBe(200)
    await db.current.db.execute(sql`update custom_field_template set applies_to = 'Seller' where code = 'CF_EMPLOYEES'`)
    try {
      const res = await get(url)
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('CF_EMPLOYEES')
    } finally {
      await db.current.db.execute(
        sql`update custom_field_template set applies_to = 'Customer' where code = 'CF_EMPLOYEES'`,
      )
    }
    expect((await get(url)).status).toBe(200)
  })

  it('follows the tenant settings: a changed default page size applies to the same request', async () => {
    const url = '/api/v1/query/customer?fields=code'
    expect((await get(url)).body.data).toHaveLength(52)
    await db.current.db.execute(sql`update tenant_setting set default_list_limit = 10`)
    forgetTenantSettings(db.current.db)
    const res = await get(url)
    expect(res.body).toMatchObject({ total: 52, limit: 10 })
    expect(res.body.data).toHaveLength(10)
  })
})

describe('read-only statements', () => {
  it('refuses a write, on either database', async () => {
    const write = db.current.readOnlyQuery(30_000, {
      text: `update customer set name = 'changed' where code = $1`,
      values: ['CUST_001'],
    })
    await expect(write).rejects.toMatchObject({ code: '25006' })
    expect((await get('/api/v1/query/customer/1?fields=name')).body.data.name).toBe('Blaise Lovelace')
  })

  it.runIf(onPostgres)(
    'prepares named statements once per connection, and at most MAX_PREPARED_STATEMENTS of them',
    async () => {
      // A database handle of its own: a fresh read pool of one connection, with no statement prepared yet.
      const own = openPostgres(db.url!, { max: 1 })
      try {
        const run = (i: number) =>
          own.readOnlyQuery<{ n: number }>(30_000, { text: `select $1::int + ${i} as n`, values: [1], name: `t_${i}` })
        for (let round = 0; round < 2; round += 1) {
          for (let i = 0; i < MAX_PREPARED_STATEMENTS + 20; i += 1) expect((await run(i))[0]!.n).toBe(i + 1)
        }
        const prepared = await own.readOnlyQuery<{ n: string }>(30_000, {
          text: 'select count(*) as n from pg_prepared_statements',
          values: [],
        })
        expect(Number(prepared[0]!.n)).toBe(MAX_PREPARED_STATEMENTS)
      } finally {
        await own.close()
      }
    },
  )
})

describe('limits', () => {
  it('refuses a filter needing more values than a statement should carry with 400 naming filters', async () => {
    const filters: Record<string, string> = {}
    for (let i = 0; i < 12_000; i += 1) filters[`AND${i} code`] = `CUST_${i}`
    const listed = await post('/api/v1/query/customer', { filters })
    expect(listed.status).toBe(400)
    expect(listed.body).toMatchObject({ errorCode: 'INVALID_FILTER' })
    expect(listed.body.message).toContain('at most 20000')
    // The count carries each value once: 12,000 values are within the bound.
    expect((await post('/api/v1/query/customer/count', { filters })).body).toEqual({ total: 0 })
  })
})

describe('row security through joins; sets combined by OR', () => {
  it('never reveals a related entity the caller may not see through filters, grouping or aggregates', async () => {
    const who = OTHER_SELLER_ONLY
    // OTHER's parent is MAIN: the unrestricted caller finds it through the relation, the restricted one cannot.
    const byParent = `/api/v1/query/seller?fields=code&filters=${q({ 'parentSeller.code': 'MAIN' })}`
    expect(codesOf((await get(byParent, QUERY_USER)).body)).toEqual(['OTHER'])
    expect((await get(byParent, who)).body.total).toBe(0)
    const probe = `/api/v1/query/seller/count?filters=${q({ 'parentSeller.description': '*Demo*' })}`
    expect((await get(probe, QUERY_USER)).body.total).toBe(1)
    expect((await get(probe, who)).body.total).toBe(0)
    const grouped = await get('/api/v1/query/seller?fields=parentSeller.code,COUNT(*)&groupBy=parentSeller.code', who)
    expect(JSON.stringify(grouped.body.data)).not.toContain('MAIN')
    const outer = await get(
      '/api/v1/query/seller?fields=parentSeller.code,COUNT(*)&groupBy=parentSeller.code&joinType=LEFT',
      who,
    )
    expect(outer.body.data).toEqual([{ 'parentSeller.code': null, 'COUNT(*)': 1 }])
    const max = await get('/api/v1/query/seller?fields=MAX(parentSeller.description)', who)
    expect(max.body.data).toEqual([{ 'MAX(parentSeller.description)': null }])
  })

  it('ANDs the blocks with a set whose operator is OR even when the set is empty (§2.6 rule 1)', async () => {
    const codes = async (filters: unknown) =>
      codesOf((await get(`/api/v1/query/customer?fields=code&sortBy=code&filters=${q(filters)}`)).body)
    expect(await codes({ $operator: 'OR', $filter1: { code: 'CUST_001' } })).toEqual(['CUST_001'])
    expect((await get(`/api/v1/query/customer/count?filters=${q({ $operator: 'OR' })}`)).body.total).toBe(52)
    expect((await get(`/api/v1/query/customer/count?filters=${q({ OR: {} })}`)).body.total).toBe(52)
  })

  it('leaves an Optional condition with a null value out of its set, an OR set too', async () => {
    const codes = async (filters: unknown) =>
      codesOf((await get(`/api/v1/query/customer?fields=code&sortBy=code&filters=${q(filters)}`)).body)
    expect(await codes({ $operator: 'OR', 'eqOptional code': null, code: 'CUST_002' })).toEqual(['CUST_002'])
    expect(await codes({ OR: { 'fromOptionalRange created': null, code: 'CUST_003' } })).toEqual(['CUST_003'])
    expect((await get(`/api/v1/query/customer/count?filters=${q({ 'eqOptional code': null })}`)).body.total).toBe(52)
  })

  it('counts an empty query parameter as absent, whatever its type', async () => {
    const url =
      '/api/v1/query/customer?filters=&fields=&sortBy=&sortOrder=&joinType=&limit=&offset=&depth=&forceCount=&extractList='
    const res = await get(url)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ total: 52, limit: 100, offset: 0 })
    expect((await get('/api/v1/query/customer/count?limit=&joinType=')).body).toEqual({ total: 52 })
    expect((await get('/api/v1/query/customer/1?fields=&depth=')).body.data.code).toBe('CUST_001')
  })
})

describe('joins never change which rows exist', () => {
  const sellers = async (query: string) =>
    codesOf((await get(`/api/v1/query/seller?fields=code&${query}`)).body as { data: { code: string }[] })

  it('sorts by a relation without dropping the rows that have none, in both directions', async () => {
    expect(await sellers('sortBy=parentSeller.code')).toEqual(['OTHER', 'MAIN'])
    expect(await sellers('sortBy=parentSeller.code&sortOrder=DESC')).toEqual(['MAIN', 'OTHER'])
    expect(await sellers('sortBy=parentSeller.code&joinType=INNER')).toEqual(['OTHER', 'MAIN'])
  })

  it('keeps a row matched by one branch of an OR set when another branch crosses a relation it lacks', async () => {
    const or = async (filters: unknown) => (await sellers(`sortBy=code&filters=${q(filters)}`)).sort()
    expect(await or({ 'likeCriterias code parentSeller.code': 'MAIN' })).toEqual(['MAIN', 'OTHER'])
    expect(await or({ $operator: 'OR', code: 'MAIN', 'parentSeller.code': 'MAIN' })).toEqual(['MAIN', 'OTHER'])
    expect(await or({ OR: { code: 'MAIN', 'parentSeller.code': 'NOBODY' } })).toEqual(['MAIN'])
    expect(await or({ $filter1: { $operator: 'or', code: 'MAIN', 'parentSeller.description': '*Demo*' } })).toEqual([
      'MAIN',
      'OTHER',
    ])
  })

  it('still lets joinType govern the joins of ANDed conditions', async () => {
    expect(await sellers(`filters=${q({ 'parentSeller.code': 'MAIN' })}`)).toEqual(['OTHER'])
    const inner = await get(`/api/v1/query/seller/count?filters=${q({ 'ne parentSeller.code': 'X' })}`)
    expect(inner.body.total).toBe(1)
    const left = await get(`/api/v1/query/seller/count?joinType=LEFT&filters=${q({ 'parentSeller.code': 'IS_NULL' })}`)
    expect(left.body.total).toBe(1)
  })
})

describe('timestamps round-trip', () => {
  it('writes instants to the millisecond, and a value read back finds its row again', async () => {
    await db.current.db.execute(
      sql`update customer set updated = '2026-05-05T10:11:12.345678Z' where code = 'CUST_010'`,
    )
    const read = await get(`/api/v1/query/customer?fields=code,updated&filters=${q({ code: 'CUST_010' })}`)
    const updated = read.body.data[0].updated as string
    expect(updated).toBe('2026-05-05T10:11:12.345Z')
    const codes = async (filters: unknown) =>
      codesOf((await get(`/api/v1/query/customer?fields=code&sortBy=code&filters=${q(filters)}`)).body)
    expect(await codes({ updated })).toEqual(['CUST_010'])
    expect(await codes({ 'toRangeInclusive updated': updated, 'fromRange updated': '2026-05-05' })).toEqual([
      'CUST_010',
    ])
    expect(await codes({ 'fromRangeExclusive updated': updated })).toEqual([])
    expect(await codes({ 'toRange updated': updated, 'fromRange updated': '2026-05-05' })).toEqual([])
    expect(await codes({ 'inList updated': [updated] })).toEqual(['CUST_010'])
    expect(await codes({ 'minmaxRangeInclusive created updated': updated, code: 'CUST_010' })).toEqual(['CUST_010'])
    expect(await codes({ updated: Date.parse(updated) })).toEqual(['CUST_010'])
    const others = await get(`/api/v1/query/customer/count?filters=${q({ 'ne updated': updated })}`)
    // CUST_001 and CUST_002: the others have never been updated (null is not "not equal").
    expect(others.body.total).toBe(2)
  })
})

describe('consistent parameters and messages', () => {
  it('reads booleans in any case', async () => {
    for (const value of ['TRUE', 'True', 'true']) {
      const res = await get(
        `/api/v1/query/customer?limit=1&forceCount=${value}&extractList=${value.replace(/t/i, 'F').replace(/rue/i, 'alse')}`,
      )
      expect(res.status, value).toBe(200)
    }
    expect((await get('/api/v1/query/entities?onlyBusinessEntities=TRUE')).body.entities).toContain('Customer')
  })

  it('answers one code per parameter, naming it, whatever the bad value', async () => {
    for (const value of ['-1', '50', 'x', '1.5']) {
      const res = await get(`/api/v1/query/customer?depth=${value}`)
      expect(res.status, value).toBe(400)
      expect(res.body, value).toMatchObject({ errorCode: 'INVALID_PARAMETER', details: [{ field: 'depth' }] })
    }
    for (const value of ['-1', 'x']) {
      const res = await get(`/api/v1/query/customer?limit=${value}`)
      expect(res.body, value).toMatchObject({ errorCode: 'INVALID_PARAMETER', details: [{ field: 'limit' }] })
    }
  })

  it('names the parameter the client sent in the POST dialect', async () => {
    const deep = await post('/api/v1/query/customer', { nestedDepth: 50 })
    expect(deep.body).toMatchObject({ errorCode: 'INVALID_PARAMETER', details: [{ field: 'nestedDepth' }] })
    const negative = await post('/api/v1/query/customer', { nestedDepth: -1 })
    expect(negative.body).toMatchObject({ errorCode: 'INVALID_PARAMETER', details: [{ field: 'nestedDepth' }] })
    const nested = await post('/api/v1/query/customer', { nestedEntities: ['nope'] })
    expect(nested.body.details[0].field).toBe('nestedEntities')
    const fields = await post('/api/v1/query/customer', { fields: ['code'] })
    expect(fields.status).toBe(400)
    expect(fields.body.message).toBe("fields: is the GET parameter's name; the POST body calls it genericFields")
  })

  it('never shows JSON-schema vocabulary in a message', async () => {
    const res = await post('/api/v1/query/customer', { genericFields: 5, sortBy: 3, limit: 'x' })
    expect(res.status).toBe(400)
    expect(res.body.message).not.toMatch(/anyOf|schema|must match|\$ref/)
    expect(res.body.details).toEqual(
      expect.arrayContaining([
        { field: 'genericFields', message: 'expected an array or a string' },
        { field: 'sortBy', message: 'expected a string' },
      ]),
    )
  })

  it('refuses type_class outside the hierarchy on every polymorphic entity', async () => {
    for (const entity of registry.queryable().filter((e) => e.inheritance)) {
      const res = await get(`/api/v1/query/${entity.name}?filters=${q({ type_class: 'Customer' })}`)
      expect(res.status, entity.name).toBe(400)
      expect(res.body.errorCode).toBe('INVALID_FILTER')
    }
  })

  it('says which methods the legacy endpoint takes', async () => {
    const res = await call('GET', '/api/rest/v2/generic/all/customer')
    expect(res.status).toBe(405)
    expect(res.headers.allow).toBe('POST')
    expect(res.body.message).toContain('allowed: POST')
  })

  it('explains that inSqlList on a relation compares its code', async () => {
    const res = await get(`/api/v1/query/customer?filters=${q({ 'inSqlList seller': 'select id from seller' })}`)
    expect(res.status).toBe(400)
    expect(res.body.message).toContain("compares the seller's code")
  })
})

describe('compact JSON', () => {
  it('writes lists and objects without spaces between tokens, like the rest of the API', async () => {
    const headers = { [PRINCIPAL_HEADER]: JSON.stringify(ADMIN) }
    const list = await server.inject({ method: 'GET', url: '/api/v1/query/customer?limit=2&nested=seller', headers })
    expect(list.body).toMatch(/^\{"total":52,"limit":2,"offset":0,"data":\[\{"id":1,"code":"CUST_001",/)
    expect(list.body).not.toMatch(/" : |, "|\n/)
    const one = await server.inject({ method: 'GET', url: '/api/v1/query/customer/1?fields=code', headers })
    expect(one.body).toBe('{"data":{"id":1,"code":"CUST_001"}}')
  })
})
