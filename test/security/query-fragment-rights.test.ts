import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { useTestApp } from '../support/test-app.ts'

// A raw SQL fragment (`SQL…`, `inSqlList`, queryExpert only) may name any table the Query API exposes. It must not
// let its caller read more than a direct query would: an entity whose view role (or queryUser) it lacks, rows another
// entity's row policy hides (other users' audit entries), or rows of another seller. Each attack below is a boolean
// oracle: a fragment true only when the hidden row exists, read through the count of the caller's own rows.

const t = useTestApp()
const filters = (value: Record<string, unknown>) => encodeURIComponent(JSON.stringify(value))

beforeAll(async () => {
  await seedAccountsDemo(t.db.current.db)
  await t.db.current.db.execute(
    sql`insert into seller (code, description, parent_seller_id, creator) select 'OTHER', 'Another seller', id, 'test' from seller where code = 'MAIN'`,
  )
  await t.db.current.db.execute(
    sql`insert into customer (code, name, seller_id, creator) select 'CUST_X1', 'Xena Other', id, 'test' from seller where code = 'OTHER'`,
  )
  await t.db.current.db.execute(
    sql`insert into query_audit (username, mode, query_hash, query_text, status) values ('someone-else', 'DEEP', 'h', 'secret-query-of-someone-else', 'SUCCESS')`,
  )
})

describe('a raw SQL fragment reads no entity its caller may not read directly', () => {
  it.each([
    ['OAuth clients', 'OauthClient', { SQL: "exists (select 1 from oauth_client where client_id like 'obol%')" }],
    ['users', 'AppUser', { SQL: 'exists (select 1 from app_user u where u.enabled)' }],
    [
      'the query audit',
      'QueryAudit',
      { SQL: "(select count(*) from query_audit where query_text like 'secret%') > 0" },
    ],
    ['users in inSqlList', 'AppUser', { 'inSqlList code': 'select username from app_user' }],
  ])('refuses %s to a customer viewer with queryExpert (403 naming the entity)', async (_what, entity, filter) => {
    const token = await t.tokenWithRoles(['accounts.customers.view', 'queryExpert'])
    const direct = await t.requestAs(token, 'GET', `/api/v1/query/${entity}`)
    expect(direct.status).toBe(403)
    const res = await t.requestAs(token, 'GET', `/api/v1/query/customer?filters=${filters(filter)}`)
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ errorCode: 'FORBIDDEN' })
    expect(res.body.message).toContain(entity)
    expect(res.body.data).toBeUndefined()
  })

  it('still runs a fragment over entities the caller may read', async () => {
    const token = await t.tokenWithRoles(['accounts.customers.view', 'queryExpert'])
    const res = await t.requestAs(
      token,
      'GET',
      `/api/v1/query/customer?filters=${filters({ SQL: "a.id in (select c.id from customer c where c.code = 'CUST_001')" })}`,
    )
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(1)
  })
})

describe('a raw SQL fragment reads no row a row policy hides from its caller', () => {
  it('refuses another user’s audit entries to a query user without the audit role', async () => {
    const token = await t.tokenWithRoles(['queryUser', 'queryExpert'])
    const direct = await t.requestAs(
      token,
      'GET',
      `/api/v1/query/QueryAudit?filters=${filters({ username: 'someone-else' })}`,
    )
    expect(direct.status).toBe(200)
    expect(direct.body.total).toBe(0)
    const oracle = { SQL: "exists (select 1 from query_audit q where q.query_text like 'secret-query%')" }
    const res = await t.requestAs(token, 'GET', `/api/v1/query/customer?filters=${filters(oracle)}`)
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ errorCode: 'FORBIDDEN' })
    expect(res.body.message).toContain('QueryAudit')
  })

  it.each([
    ['EXISTS', { SQL: "exists (select 1 from customer c where c.code = 'CUST_X1')" }],
    ['a scalar sub-select', { SQL: "(select count(*) from customer c where c.name like 'Xena%') = 1" }],
    [
      'inSqlList',
      {
        'inSqlList id': "select c.id + 0 * (select count(*) from customer x where x.code = 'CUST_X1') from customer c",
      },
    ],
    ['the seller itself', { SQL: "exists (select 1 from seller s where s.code = 'OTHER')" }],
  ])('refuses another seller’s rows through %s to a seller-restricted caller', async (_how, filter) => {
    const token = await t.tokenWithRoles(['queryUser', 'queryExpert'], { sellerCodes: ['MAIN'] })
    const direct = await t.requestAs(token, 'GET', `/api/v1/query/customer?filters=${filters({ code: 'CUST_X1' })}`)
    expect(direct.status).toBe(200)
    expect(direct.body.total).toBe(0)
    const res = await t.requestAs(token, 'GET', `/api/v1/query/customer?filters=${filters(filter)}`)
    expect(res.status).toBe(403)
    expect(res.body).toMatchObject({ errorCode: 'FORBIDDEN' })
    expect(res.body.data).toBeUndefined()
  })

  it('lets an audit reader read every audit entry through a fragment', async () => {
    const token = await t.tokenWithRoles(['queryUser', 'queryExpert', 'api.audit.view'])
    const oracle = { SQL: "exists (select 1 from query_audit q where q.query_text like 'secret-query%')" }
    const res = await t.requestAs(token, 'GET', `/api/v1/query/customer?filters=${filters(oracle)}`)
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(51)
  })

  it('lets an unrestricted caller read every seller’s rows through a fragment', async () => {
    const token = await t.tokenWithRoles(['queryUser', 'queryExpert'])
    const res = await t.requestAs(
      token,
      'GET',
      `/api/v1/query/customer?filters=${filters({ SQL: "exists (select 1 from customer c where c.code = 'CUST_X1')" })}`,
    )
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(51)
  })

  it('lets a seller-restricted caller filter on its root row’s own columns', async () => {
    const token = await t.tokenWithRoles(['queryUser', 'queryExpert'], { sellerCodes: ['MAIN'] })
    const res = await t.requestAs(
      token,
      'GET',
      `/api/v1/query/customer?filters=${filters({ SQL: "a.code in ('CUST_001', 'CUST_X1')" })}`,
    )
    expect(res.status).toBe(200)
    expect(res.body.total).toBe(1)
  })
})
