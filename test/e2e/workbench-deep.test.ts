import { sql } from 'drizzle-orm'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { rows as dbRows } from '../../src/kernel/db/database.ts'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'

// Deep mode (HQL) on the demo tenant: every construct of the subset, the same answers as the Query API, the hostile
// battery, the governor, the audit, row security and the schema endpoints.

const clock = new FakeClock('2026-11-24T10:00:00Z')
const t = useTestApp({ clock })
let analyst = ''
const deep = (text: string, params: Record<string, string> = {}, token?: string) =>
  t.requestAs(token ?? analyst, 'GET', `/api/rest/query?${new URLSearchParams({ query: text, ...params }).toString()}`)
const rows = async (text: string, params: Record<string, string> = {}) => {
  const res = await deep(text, params)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body as Record<string, unknown>[]
}
const setGovernor = async (values: Record<string, number>) => {
  const res = await t.request('PUT', '/api/v1/tenantSettings', { workbench: { governor: values } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  forgetTenantSettings(t.db.current.db)
}

beforeAll(async () => {
  await seedDemo(t.db.current.db)
  await t.db.current.db.execute(
    sql`insert into seller (code, description, parent_seller_id, creator) select 'OTHER', 'Another seller', id, 'test' from seller where code = 'MAIN'`,
  )
  await t.db.current.db.execute(
    sql`insert into customer (code, name, seller_id, creator) select 'CUST_X1', 'Xena Other', id, 'test' from seller where code = 'OTHER'`,
  )
  analyst = await t.tokenWithRoles(['queryUser'])
  // Each test gets a fresh minute of the governor.
  clock.advance(0)
})

const nextMinute = () => clock.advance(60_000)

describe('Deep queries: the subset', () => {
  it('answers entities as the Query API writes them at depth 0 without a select clause', async () => {
    nextMinute()
    const found = await rows("from Customer c where c.code = 'CUST_001'")
    expect(found).toHaveLength(1)
    const fromApi = await t.request(
      'GET',
      '/api/v1/query/customer?filters=' + encodeURIComponent('{"code":"CUST_001"}'),
    )
    expect(found[0]).toEqual(fromApi.body.data[0])
    expect(found[0]!.seller).toEqual({ id: expect.any(Number) })
  })

  it('keys selected expressions as written, or by their alias', async () => {
    nextMinute()
    const found = await rows(
      "select c.code as code, c.seller.code, lower(c.name) from Customer c where c.code like 'CUST_00%' order by c.code desc",
    )
    expect(found).toHaveLength(9)
    expect(found[0]).toEqual({ code: 'CUST_009', 'c.seller.code': 'MAIN', 'lower(c.name)': expect.any(String) })
    expect(found.map((r) => r.code)).toEqual([...found.map((r) => r.code as string)].sort().reverse())
  })

  it('joins a collection explicitly, one row per element, and takes named parameters', async () => {
    nextMinute()
    const found = await rows('select c.code, ca.code from Customer c join c.customerAccounts ca where c.code = :code', {
      code: 'CUST_002',
    })
    expect(found).toEqual([{ 'c.code': 'CUST_002', 'ca.code': expect.stringMatching(/CUST_002|002/) }])
    const left = await rows("select s.code, c.code from Seller s left join s.customers c where s.code = 'OTHER'")
    expect(left).toEqual([{ 's.code': 'OTHER', 'c.code': 'CUST_X1' }])
  })

  it('aggregates: count(*), count(distinct), sum, avg, min, max, group by, having, order by an alias', async () => {
    nextMinute()
    const bySeller = await rows(
      'select c.seller.code as seller, count(*) as n from Customer c group by c.seller.code having count(*) > 0 order by n desc',
    )
    expect(bySeller).toEqual([
      { seller: 'MAIN', n: 50 },
      { seller: 'OTHER', n: 1 },
    ])
    const [ops] = await rows(
      "select count(*) as n, count(distinct w.billingAccount) as accounts, sum(w.amountWithoutTax) as total, min(w.amountWithoutTax) as low, max(w.amountWithoutTax) as high, avg(w.quantity) as q from WalletOperation w where w.status = 'OPEN'",
    )
    const viaApi = await t.request(
      'GET',
      `/api/v1/query/walletOperation?fields=COUNT(id),SUM(amountWithoutTax),MIN(amountWithoutTax),MAX(amountWithoutTax)&filters=${encodeURIComponent('{"status":"OPEN"}')}`,
    )
    const api = viaApi.body.data[0]
    expect(ops).toMatchObject({
      n: api['COUNT(id)'],
      total: api['SUM(amountWithoutTax)'],
      low: api['MIN(amountWithoutTax)'],
      high: api['MAX(amountWithoutTax)'],
    })
    expect(ops!.accounts).toBeGreaterThan(0)
  })

  it('compares with =, <>, <, <=, >, >=, like, not like, in, not in, between, is [not] null, and, or, not', async () => {
    nextMinute()
    const codes = async (where: string, params: Record<string, string> = {}) =>
      (await rows(`select c.code from Customer c where ${where} order by c.code`, params)).map((r) => r['c.code'])
    expect(await codes("c.code = 'CUST_003'")).toEqual(['CUST_003'])
    expect(await codes("c.code <> 'CUST_003' and c.code != 'CUST_004' and c.code < 'CUST_006'")).toEqual([
      'CUST_001',
      'CUST_002',
      'CUST_005',
    ])
    expect(await codes("c.code >= 'CUST_049' and c.code like 'CUST%'")).toEqual(['CUST_049', 'CUST_050', 'CUST_X1'])
    expect(await codes("c.code > 'CUST_048' and c.code not like '%X%' and c.code <= 'CUST_049'")).toEqual(['CUST_049'])
    expect(await codes("c.code in ('CUST_001', 'CUST_010')")).toEqual(['CUST_001', 'CUST_010'])
    expect((await codes("c.code not in ('CUST_001')")).length).toBe(50)
    expect(await codes("c.code between 'CUST_010' and 'CUST_012'")).toEqual(['CUST_010', 'CUST_011', 'CUST_012'])
    expect(await codes("c.code not between 'CUST_002' and 'CUST_X1'")).toEqual(['CUST_001'])
    expect((await codes('c.email is not null')).length + (await codes('c.email is null')).length).toBe(51)
    expect(await codes("not (c.code <> 'CUST_007') or c.code = :other", { other: 'CUST_008' })).toEqual([
      'CUST_007',
      'CUST_008',
    ])
    expect(await codes('c.id = :id', { id: '1' })).toEqual(['CUST_001'])
  })

  it('computes upper, lower, coalesce, concat, year and month (in the tenant time zone)', async () => {
    nextMinute()
    await t.db.current.db.execute(sql`update customer set created = '2025-12-31T23:30:00Z' where code = 'CUST_005'`)
    const [row] = await rows(
      "select upper(c.code) as u, concat(c.code, '-', c.seller.code) as k, coalesce(c.updater, 'none') as d, year(c.created) as y, month(c.created) as m from Customer c where c.code = 'CUST_005'",
    )
    expect(row).toEqual({ u: 'CUST_005', k: 'CUST_005-MAIN', d: 'none', y: 2025, m: 12 })
    await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Europe/Paris' })
    forgetTenantSettings(t.db.current.db)
    const [paris] = await rows("select year(c.created) as y from Customer c where c.code = 'CUST_005'")
    expect(paris).toEqual({ y: 2026 })
    await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })
    forgetTenantSettings(t.db.current.db)
  })

  it('returns subclass rows on a parent class, and only a subclass when it is named', async () => {
    nextMinute()
    const all = await rows('select c.code, c.calendarType from Calendar c')
    const periods = await rows('select c.code from CalendarPeriod c')
    expect(all.length).toBeGreaterThan(periods.length)
    expect(periods.length).toBeGreaterThan(0)
  })

  it('cuts at maxRowsSync and says so in X-Result-Truncated', async () => {
    nextMinute()
    await setGovernor({ maxRowsSync: 10 })
    const res = await deep('from Customer c order by c.id')
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(10)
    expect(res.headers['x-result-truncated']).toBe('true')
    const whole = await deep("from Customer c where c.code = 'CUST_001'")
    expect(whole.headers['x-result-truncated']).toBeUndefined()
    await setGovernor({ maxRowsSync: 1000 })
  })
})

describe('the same question through the Query API and through HQL', () => {
  it('returns the same rows for generated filters', async () => {
    const fields = ['code', 'name', 'email'] as const
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        fc.constantFrom('CUST_01*', '*0*', 'CUST_00?', '*'),
        fc.boolean(),
        async (field, pattern, descending) => {
          nextMinute()
          const like = pattern.replace(/\*/g, '%').replace(/\?/g, '_')
          const hql = await rows(
            `select c.id, c.code from Customer c where lower(c.${field}) like lower(:p) order by c.code ${descending ? 'desc' : 'asc'}, c.id`,
            { p: like },
          )
          const filters = encodeURIComponent(JSON.stringify({ [field]: pattern.replace('?', '*') }))
          const api = await t.request(
            'GET',
            `/api/v1/query/customer?fields=code&limit=1000&sortBy=code&sortOrder=${descending ? 'DESC' : 'ASC'}&filters=${filters}`,
          )
          if (!pattern.includes('?'))
            expect(hql.map((r) => r['c.code'])).toEqual(api.body.data.map((r: { code: string }) => r.code))
        },
      ),
      { numRuns: 12 },
    )
  })
})

describe('hostile texts: 400, never 500, nothing changed', () => {
  const hostile = [
    'delete from Customer',
    'DeLeTe from Customer',
    "from Customer c where c.code = 'x'; drop table customer",
    'from Customer c where c.code = 1 -- comment',
    'from Customer c /* comment */',
    'select c.code from Customer c into x',
    'from Customer c where exec(1) = 1',
    'from pg_class',
    'from Customer c where c.passwordHash is null',
    'from UserCredential u',
    'from Customer c where frob(c.code) = 1',
    'select c.code from Customer c group by c.name',
    `from Customer c where ${'('.repeat(500)}c.id = 1${')'.repeat(500)}`,
    `from Customer c where c.code = '${'x'.repeat(100_000)}'`,
    'from Customer c where c.code = :missing',
    'from Customer c where c.id = :id',
    'from Customer c join c.customerAccounts ca join ca.nothing n',
    'from Customer c where c.customerAccounts.code = 1',
    'select sum(c.code) from Customer c',
    'from Customer c where count(*) > 1',
    'update Customer set name = null',
    'insert into Customer values (1)',
    'from Customer c where c.code = "CUST_001"',
    'from Customer c where c.code = 12',
    'from Customer c where c.created = :when',
  ]
  it.each(hostile.map((h, i) => [i, h.slice(0, 80), h] as const))('#%i %s', async (_i, _label, text) => {
    nextMinute()
    const before = (await t.request('GET', '/api/v1/query/customer/count')).body.total
    const res = await deep(text, text.includes(':id') ? { id: 'one' } : text.includes(':when') ? { when: 'noon' } : {})
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400)
    expect(res.body.errorCode).toBe('INVALID_QUERY')
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT |stack|at Object|SQLSTATE/i)
    expect((await t.request('GET', '/api/v1/query/customer/count')).body.total).toBe(before)
  })

  it('reads a quote inside a string as a character, never as the end of the value', async () => {
    nextMinute()
    expect(await rows("from Customer c where c.code = 'a'' or ''1''=''1'")).toEqual([])
  })

  it('points at the offending token', async () => {
    nextMinute()
    const res = await deep('select c form Customer c')
    expect(res.body).toEqual({
      status: 'FAIL',
      errorCode: 'INVALID_QUERY',
      message: "Unexpected 'form' at line 1, column 10: expected 'from'",
      line: 1,
      column: 10,
    })
  })
})

describe('roles, row security, governor and audit', () => {
  it('needs queryUser, and the view role is not enough', async () => {
    const viewer = await t.tokenWithRoles(['accounts.customers.view'])
    expect((await deep('from Customer c', {}, viewer)).status).toBe(403)
    expect((await t.requestAs(undefined, 'GET', '/api/rest/query?query=from%20Customer')).status).toBe(401)
  })

  it('applies row-level security as the Query API does', async () => {
    nextMinute()
    const restricted = await t.tokenWithRoles(['queryUser'], { sellerCodes: ['OTHER'] })
    const res = await deep('select c.code from Customer c', {}, restricted)
    expect(res.body).toEqual([{ 'c.code': 'CUST_X1' }])
    const joined = await deep('select s.code, c.code from Seller s join s.customers c', {}, restricted)
    expect(joined.body).toEqual([{ 's.code': 'OTHER', 'c.code': 'CUST_X1' }])
  })

  it('refuses the query past maxQueriesPerMinutePerUser with 429 and Retry-After, counting refused texts', async () => {
    nextMinute()
    clock.set(new Date(Math.floor(clock.now().getTime() / 60_000) * 60_000 + 15_000))
    await setGovernor({ maxQueriesPerMinutePerUser: 3 })
    const user = await t.tokenWithRoles(['queryUser', 'queryManagement'])
    expect((await deep('from Customer c where c.id = 1', {}, user)).status).toBe(200)
    expect((await deep('form Customer', {}, user)).status).toBe(400)
    expect((await deep('from Customer c where c.id = 1', {}, user)).status).toBe(200)
    const refused = await deep('from Customer c where c.id = 1', {}, user)
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('45')
    expect(refused.body).toMatchObject({ status: 'FAIL', errorCode: 'QUERY_LIMIT_EXCEEDED' })
    nextMinute()
    expect((await deep('from Customer c where c.id = 1', {}, user)).status).toBe(200)
    await setGovernor({ maxQueriesPerMinutePerUser: 30 })
  })

  it('audits every submission and its result, readable with api.audit.view', async () => {
    nextMinute()
    const auditor = await t.tokenWithRoles(['api.audit.view'])
    const text = "select c.code from Customer c where c.code = 'CUST_011'"
    await deep(text)
    await deep('from Nowhere n')
    const filters = encodeURIComponent(JSON.stringify({ mode: 'DEEP' }))
    const audit = await t.requestAs(
      auditor,
      'GET',
      `/api/v1/query/queryAudit?filters=${filters}&sortBy=id&sortOrder=DESC&limit=2&forceCount=true`,
    )
    expect(audit.status).toBe(200)
    const [failed, ok] = audit.body.data
    expect(ok).toMatchObject({ mode: 'DEEP', queryText: text, status: 'SUCCESS', rowCount: 1 })
    expect(ok.queryHash).toMatch(/^[0-9a-f]{64}$/)
    expect(failed).toMatchObject({
      queryText: 'from Nowhere n',
      status: 'FAILED',
      errorMessage: expect.stringContaining('Nowhere'),
    })
    // A query user without the audit role reads only their own entries.
    const mine = await t.requestAs(analyst, 'GET', '/api/v1/query/queryAudit?fields=username&limit=1000')
    expect(new Set(mine.body.data.map((r: { username: string }) => r.username)).size).toBe(1)
  })

  it.runIf(onPostgres)('answers 408 QUERY_TIMEOUT past maxQueryDurationSyncSec (PostgreSQL server)', async () => {
    nextMinute()
    await t.db.current.db.execute(sql`insert into customer (code, name, seller_id, creator)
      select 'BIG_' || g, 'Big ' || g, (select id from seller where code = 'MAIN'), 'test' from generate_series(1, 3000) g`)
    await setGovernor({ maxQueryDurationSyncSec: 1 })
    const res = await deep('select count(*) from Seller s join s.customers a join s.customers b join s.customers c')
    expect(res.status).toBe(408)
    expect(res.body.errorCode).toBe('QUERY_TIMEOUT')
    await setGovernor({ maxQueryDurationSyncSec: 30 })
  })
})

describe('schema endpoints', () => {
  it('lists the entities and describes one with its fields, relations, table and columns', async () => {
    const list = await t.requestAs(analyst, 'GET', '/api/v1/workbench/schema/entities')
    expect(list.body.entities).toEqual(expect.arrayContaining(['Customer', 'CalendarPeriod', 'WalletOperation']))
    expect(list.body.entities).not.toContain('UserCredential')
    const customer = await t.requestAs(analyst, 'GET', '/api/v1/workbench/schema/entities/customer')
    expect(customer.body).toMatchObject({
      name: 'Customer',
      fullName: expect.stringMatching(/^org\.obol\.model\./),
      parent: null,
      subclasses: [],
      database: { tableName: 'customer' },
    })
    expect(customer.body.fields).toEqual(
      expect.arrayContaining([
        { name: 'code', type: 'string', nullable: false, relation: null },
        { name: 'seller', type: 'Seller', nullable: false, relation: { kind: 'manyToOne', target: 'Seller' } },
        {
          name: 'customerAccounts',
          type: 'list',
          nullable: true,
          relation: { kind: 'oneToMany', target: 'CustomerAccount' },
        },
      ]),
    )
    expect(customer.body.database.columns).toContainEqual({ field: 'seller', column: 'seller_id' })
    const sub = await t.requestAs(analyst, 'GET', '/api/v1/workbench/schema/entities/CalendarPeriod')
    expect(sub.body).toMatchObject({ name: 'CalendarPeriod', parent: 'Calendar' })
    const calendar = await t.requestAs(analyst, 'GET', '/api/v1/workbench/schema/entities/Calendar')
    expect(calendar.body.subclasses).toContain('CalendarPeriod')
    const unknown = await t.requestAs(analyst, 'GET', '/api/v1/workbench/schema/entities/Nowhere')
    expect(unknown.status).toBe(404)
    expect(unknown.body.errorCode).toBe('ENTITY_NOT_FOUND')
  })
})

describe('Expert schema endpoint', () => {
  it('lists exactly the tables the Expert role may read, with their columns, and no platform record', async () => {
    const expert = await t.tokenWithRoles(['queryUser', 'queryExpert'])
    const res = await t.requestAs(expert, 'GET', '/api/v1/workbench/expert/schema/tables')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const tables = res.body.tables as { name: string; columns: unknown[] }[]
    const names = tables.map((table) => table.name)
    const granted = await dbRows<{ table_name: string }>(
      t.db.current.db,
      sql`select distinct table_name from information_schema.role_table_grants
          where grantee = 'obol_expert' and privilege_type = 'SELECT' order by table_name`,
    )
    expect(names).toEqual(granted.map((row) => row.table_name))
    expect(names).toContain('customer')
    for (const platform of ['obol_user', 'report_query', 'query_execution', 'job'])
      expect(names).not.toContain(platform)
    const customer = tables.find((table) => table.name === 'customer')!
    expect(customer.columns).toEqual(
      expect.arrayContaining([
        { name: 'code', type: 'string', references: null },
        { name: 'seller_id', type: 'long', references: 'seller' },
      ]),
    )
    // Deep users without queryExpert are refused, and so is queryExpert without queryUser (it cannot run Expert).
    expect((await t.requestAs(analyst, 'GET', '/api/v1/workbench/expert/schema/tables')).status).toBe(403)
    const expertOnly = await t.tokenWithRoles(['queryExpert'])
    const refused = await t.requestAs(expertOnly, 'GET', '/api/v1/workbench/expert/schema/tables')
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('queryUser')
  })
})

describe('saved workbench queries', () => {
  it('saves, lists, reads, changes and deletes HQL and NATIVE_SQL queries, the same records as report queries', async () => {
    nextMinute()
    const created = await t.requestAs(analyst, 'POST', '/api/v1/workbench/queries', {
      code: 'WB_CUSTOMERS',
      description: 'Customers by code',
      visibility: 'PUBLIC',
      queryType: 'HQL',
      queryText: 'select c.code from Customer c order by c.code',
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body).toMatchObject({
      code: 'WB_CUSTOMERS',
      queryType: 'HQL',
      targetEntity: 'Customer',
      system: false,
    })
    // Native SQL is saved by queryExpert holders only (a queryUser's is refused, whatever its text).
    const nativeBody = {
      code: 'WB_NATIVE',
      visibility: 'PRIVATE',
      queryType: 'NATIVE_SQL',
      queryText: 'select code from customer',
    }
    const refused = await t.requestAs(analyst, 'POST', '/api/v1/workbench/queries', nativeBody)
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain('queryExpert')
    const author = await t.tokenWithRoles(['queryUser', 'queryExpert'])
    const native = await t.requestAs(author, 'POST', '/api/v1/workbench/queries', nativeBody)
    expect(native.status).toBe(201)
    const bad = await t.requestAs(analyst, 'POST', '/api/v1/workbench/queries', {
      code: 'WB_BAD',
      visibility: 'PUBLIC',
      queryType: 'HQL',
      queryText: 'select c form Customer c',
    })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatchObject({ errorCode: 'INVALID_QUERY', line: 1, column: 10 })
    const list = await t.requestAs(author, 'GET', '/api/v1/workbench/queries')
    expect(list.body.data.map((q: { code: string }) => q.code)).toEqual(['WB_CUSTOMERS', 'WB_NATIVE'])
    const asReport = await t.request(
      'GET',
      '/api/v1/query/reportQuery?fields=code,queryType&filters=' + encodeURIComponent('{"code":"WB_CUSTOMERS"}'),
    )
    expect(asReport.body.data).toEqual([{ id: expect.any(Number), code: 'WB_CUSTOMERS', queryType: 'HQL' }])
    const changed = await t.requestAs(analyst, 'PUT', '/api/v1/workbench/queries/WB_CUSTOMERS', {
      queryText: "select c.code from Customer c where c.code like 'CUST_00%' order by c.code",
    })
    expect(changed.status).toBe(200)
    expect(changed.body.queryText).toContain('CUST_00%')

    const run = await t.requestAs(analyst, 'POST', '/api/v1/reportQueries/WB_CUSTOMERS/executions', {})
    expect(run.status).toBe(200)
    expect(run.body).toMatchObject({ status: 'SUCCESS', rowCount: 9 })
    expect(run.body.rows[0]).toEqual({ 'c.code': 'CUST_001' })
    const nativeRun = await t.requestAs(author, 'POST', '/api/v1/reportQueries/WB_NATIVE/executions', {})
    expect(nativeRun.status).toBe(400)
    expect(nativeRun.body).toMatchObject({
      error_code: 'invalid-parameter',
      message: expect.stringContaining('workbench'),
    })

    const other = await t.tokenWithRoles(['queryUser'])
    expect((await t.requestAs(other, 'GET', '/api/v1/workbench/queries/WB_NATIVE')).status).toBe(404)
    expect((await t.requestAs(other, 'DELETE', '/api/v1/workbench/queries/WB_CUSTOMERS')).status).toBe(403)
    expect((await t.requestAs(analyst, 'DELETE', '/api/v1/workbench/queries/WB_CUSTOMERS')).status).toBe(204)
    expect((await t.requestAs(analyst, 'GET', '/api/v1/workbench/queries/WB_CUSTOMERS')).status).toBe(404)
  })

  it('caps a saved HQL query run as a report at 100 rows', async () => {
    nextMinute()
    await t.requestAs(analyst, 'POST', '/api/v1/workbench/queries', {
      code: 'WB_MANY',
      visibility: 'PUBLIC',
      queryType: 'HQL',
      queryText: 'from WalletOperation w',
    })
    const run = await t.requestAs(analyst, 'POST', '/api/v1/reportQueries/WB_MANY/executions', {})
    expect(run.status).toBe(200)
    expect(run.body.rowCount).toBeLessThanOrEqual(100)
  })
})
