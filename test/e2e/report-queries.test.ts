import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { useTestApp } from '../support/test-app.ts'

const t = useTestApp()

let alice = ''
let bob = ''
let carol = ''
let stranger = ''

async function clientInGroup(group: string, clientId: string): Promise<string> {
  const client = await t.request('POST', '/api/v1/clients', { clientId, groups: [group] })
  const response = await t.app.server.inject({
    method: 'POST',
    url: '/auth/realms/obol/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: client.body.clientSecret,
    }).toString(),
  })
  return response.json<{ access_token: string }>().access_token
}

beforeAll(async () => {
  await t.request('POST', '/api/v1/groups', { name: 'Analysts', roles: ['queryUser'] })
  await t.request('POST', '/api/v1/groups', { name: 'Auditors', roles: ['queryUser'] })
  alice = await clientInGroup('Analysts', 'alice')
  carol = await clientInGroup('Analysts', 'carol')
  bob = await clientInGroup('Auditors', 'bob')
  stranger = await t.tokenWithRoles(['accounts.customers.view'])
  await t.db.current.db.execute(
    sql`insert into tax_class (code, description) select 'TC_' || lpad(i::text, 3, '0'), 'class ' || i from generate_series(1, 130) i`,
  )
})

const query = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  description: 'tax classes',
  targetEntity: 'TaxClass',
  visibility: 'PUBLIC',
  tags: ['finance'],
  aliases: { code: 'Code' },
  advancedQuery: { filters: { code: 'TC_*' }, genericFields: ['code', 'description'], sortBy: 'code' },
  ...extra,
})

const v1 = (error_code: string) => ({ status: 'FAIL', error_code, message: expect.any(String) })

describe('create and upsert', () => {
  it('creates a query, echoing the input with queryType VISUAL and system false', async () => {
    const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_CREATE'))
    expect(response.status).toBe(201)
    expect(response.body).toEqual({ ...query('Q_CREATE'), queryType: 'VISUAL', system: false })
  })

  it('refuses an existing code with 409 resource-already-exists, even for another owner', async () => {
    const response = await t.requestAs(bob, 'POST', '/api/v1/reportQueries', query('Q_CREATE'))
    expect(response.status).toBe(409)
    expect(response.body).toEqual({
      status: 'FAIL',
      error_code: 'resource-already-exists',
      message: 'Report query Q_CREATE already exists',
    })
  })

  it.each(['code', 'targetEntity', 'visibility', 'advancedQuery'])(
    'answers 400 missing-parameter without %s',
    async (field) => {
      const body = Object.fromEntries(Object.entries(query('Q_MISSING')).filter(([key]) => key !== field))
      const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries', body)
      expect(response.status).toBe(400)
      expect(response.body).toEqual(v1('missing-parameter'))
      expect(response.body.message).toContain(field)
    },
  )

  it.each([
    [{ advancedQuery: {} }, 'missing-parameter', 'advancedQuery'],
    [{ visibility: 'FRIENDS' }, 'invalid-parameter', 'FRIENDS'],
    [{ targetEntity: 'Spaceship' }, 'invalid-parameter', 'Spaceship'],
    [{ advancedQuery: { limit: 5 } }, 'invalid-parameter', 'limit'],
    [{ advancedQuery: { filters: { colour: 'red' } } }, 'invalid-parameter', 'colour'],
    [{ advancedQuery: { filters: { 'sometimes code': 'x' } } }, 'invalid-parameter', 'sometimes'],
    [{ owner: 'me' }, 'invalid-parameter', 'owner'],
    [{ tags: 'finance' }, 'invalid-parameter', 'tags'],
  ])('refuses %j with %s naming it', async (extra, code, named) => {
    const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_BAD', extra))
    expect(response.status).toBe(400)
    expect(response.body).toEqual(v1(code))
    expect(response.body.message).toContain(named)
    expect((await t.request('GET', '/api/v1/reportQueries/Q_BAD')).status).toBe(404)
  })

  it('upserts: the path code wins, 201 when created and 200 when updated', async () => {
    const created = await t.requestAs(alice, 'POST', '/api/v1/reportQueries/Q_UPSERT', query('IGNORED'))
    expect(created.status).toBe(201)
    expect(created.body.code).toBe('Q_UPSERT')
    const updated = await t.requestAs(
      alice,
      'POST',
      '/api/v1/reportQueries/Q_UPSERT',
      query('IGNORED', { description: 'v2' }),
    )
    expect(updated.status).toBe(200)
    expect(updated.body.description).toBe('v2')
    expect((await t.request('GET', '/api/v1/reportQueries/IGNORED')).status).toBe(404)
  })
})

describe('partial update', () => {
  it('keeps null and absent fields, clears empty ones, replaces tags and aliases whole', async () => {
    await t.requestAs(
      alice,
      'POST',
      '/api/v1/reportQueries',
      query('Q_PUT', { tags: ['a', 'b'], aliases: { code: 'Code', description: 'Text' } }),
    )
    const kept = await t.requestAs(alice, 'PUT', '/api/v1/reportQueries/Q_PUT', { description: null, tags: ['c'] })
    expect(kept.body).toMatchObject({
      description: 'tax classes',
      tags: ['c'],
      aliases: { code: 'Code', description: 'Text' },
    })
    const cleared = await t.requestAs(alice, 'PUT', '/api/v1/reportQueries/Q_PUT', {
      description: '',
      tags: [],
      aliases: {},
    })
    expect(cleared.status).toBe(200)
    expect(cleared.body).toMatchObject({
      description: null,
      tags: [],
      aliases: {},
      visibility: 'PUBLIC',
      targetEntity: 'TaxClass',
    })
    const refused = await t.requestAs(alice, 'PUT', '/api/v1/reportQueries/Q_PUT', { advancedQuery: {} })
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual(v1('missing-parameter'))
    const changed = await t.requestAs(alice, 'PUT', '/api/v1/reportQueries/Q_PUT', {
      advancedQuery: { genericFields: ['code'] },
    })
    expect(changed.body.advancedQuery).toEqual({ genericFields: ['code'] })
    expect((await t.requestAs(alice, 'PUT', '/api/v1/reportQueries/Q_NONE', { description: 'x' })).body).toEqual(
      v1('resource-not-found'),
    )
  })
})

describe('visibility', () => {
  beforeAll(async () => {
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_PRIVATE', { visibility: 'PRIVATE' }))
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_PROTECTED', { visibility: 'PROTECTED' }))
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_PUBLIC'))
  })

  it('hides a PRIVATE query from everyone but its creator and queryManagement', async () => {
    for (const token of [bob, carol]) {
      expect((await t.requestAs(token, 'GET', '/api/v1/reportQueries/Q_PRIVATE')).status).toBe(404)
      expect((await t.requestAs(token, 'POST', '/api/v1/reportQueries/Q_PRIVATE/executions', {})).body).toEqual(
        v1('resource-not-found'),
      )
      expect((await t.requestAs(token, 'PUT', '/api/v1/reportQueries/Q_PRIVATE', { description: 'x' })).status).toBe(
        404,
      )
      expect((await t.requestAs(token, 'DELETE', '/api/v1/reportQueries/Q_PRIVATE')).status).toBe(404)
    }
    expect((await t.requestAs(alice, 'GET', '/api/v1/reportQueries/Q_PRIVATE')).status).toBe(200)
    expect((await t.request('GET', '/api/v1/reportQueries/Q_PRIVATE')).status).toBe(200)
  })

  it('shows a PROTECTED query to members of the creator’s groups only', async () => {
    expect((await t.requestAs(carol, 'POST', '/api/v1/reportQueries/Q_PROTECTED/executions', {})).status).toBe(200)
    expect((await t.requestAs(bob, 'POST', '/api/v1/reportQueries/Q_PROTECTED/executions', {})).status).toBe(404)
  })

  it('lets others run a PUBLIC query but not change it; queryManagement can', async () => {
    expect((await t.requestAs(bob, 'POST', '/api/v1/reportQueries/Q_PUBLIC/executions', {})).status).toBe(200)
    const refused = await t.requestAs(bob, 'PUT', '/api/v1/reportQueries/Q_PUBLIC', { description: 'mine now' })
    expect(refused.status).toBe(403)
    expect(refused.body).toEqual(v1('forbidden'))
    expect((await t.request('PUT', '/api/v1/reportQueries/Q_PUBLIC', { description: 'by management' })).status).toBe(
      200,
    )
  })

  it('still treats the code of an invisible query as taken', async () => {
    const response = await t.requestAs(bob, 'POST', '/api/v1/reportQueries/Q_PRIVATE', query('Q_PRIVATE'))
    expect(response.status).toBe(409)
    expect(response.body).toEqual(v1('resource-already-exists'))
  })

  it('answers 403 forbidden in the ErrorV1 shape without a query role', async () => {
    const response = await t.requestAs(stranger, 'POST', '/api/v1/reportQueries', query('Q_NO_ROLE'))
    expect(response.status).toBe(403)
    expect(response.body).toEqual(v1('forbidden'))
  })
})

describe('execution', () => {
  it('runs through the Query API engine, capped at 100 rows, and records the execution', async () => {
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_EXEC'))
    const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries/Q_EXEC/executions', {})
    expect(response.status).toBe(200)
    expect(response.body.status).toBe('SUCCESS')
    expect(response.body.rowCount).toBe(100)
    expect(response.body.rows).toHaveLength(100)
    expect(response.body.rows[0]).toMatchObject({ code: 'TC_001', description: 'class 1' })
    const history = await t.requestAs(alice, 'GET', '/api/v1/reportQueries/Q_EXEC/executions')
    expect(history.body.data[0]).toMatchObject({
      status: 'SUCCESS',
      rowCount: 100,
      executedBy: 'service-account-alice',
    })
    expect((await t.requestAs(bob, 'GET', '/api/v1/reportQueries/Q_EXEC/executions')).body.total).toBe(0)
  })

  it('accepts mode=sync and refuses any other mode with the async message', async () => {
    expect((await t.requestAs(alice, 'POST', '/api/v1/reportQueries/Q_EXEC/executions?mode=sync', {})).status).toBe(200)
    const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries/Q_EXEC/executions?mode=async', {})
    expect(response.status).toBe(400)
    expect(response.body).toEqual({
      status: 'FAIL',
      error_code: 'invalid-parameter',
      message: 'mode async is not supported: async execution is not yet available, only sync is supported',
    })
  })

  it('answers 404 resource-not-found naming an unknown code', async () => {
    const response = await t.requestAs(alice, 'POST', '/api/v1/reportQueries/NOPE/executions', {})
    expect(response.status).toBe(404)
    expect(response.body).toEqual({
      status: 'FAIL',
      error_code: 'resource-not-found',
      message: 'Report query NOPE not found',
    })
  })

  it('runs SQL keys only for a caller holding queryExpert', async () => {
    const created = await t.request(
      'POST',
      '/api/v1/reportQueries',
      query('Q_SQL', { advancedQuery: { filters: { SQL: "a.code like 'TC_00%'" } } }),
    )
    expect(created.status).toBe(201)
    expect((await t.requestAs(alice, 'POST', '/api/v1/reportQueries/Q_SQL/executions', {})).status).toBe(403)
    const asExpert = await t.request('POST', '/api/v1/reportQueries/Q_SQL/executions', {})
    expect(asExpert.status).toBe(200)
  })
})

describe('system queries and deletion', () => {
  it('seeds system queries that run and refuse update and delete with 409 resource-in-use', async () => {
    const system = await t.requestAs(alice, 'GET', '/api/v1/reportQueries/SYS_CUSTOMERS_BY_SELLER')
    expect(system.body).toMatchObject({ system: true, queryType: 'VISUAL', visibility: 'PUBLIC' })
    expect(
      (await t.requestAs(alice, 'POST', '/api/v1/reportQueries/SYS_CUSTOMERS_BY_SELLER/executions', {})).body.status,
    ).toBe('SUCCESS')
    for (const [method, body] of [
      ['PUT', { description: 'x' }],
      ['DELETE', undefined],
      ['POST', query('X')],
    ] as const) {
      const response = await t.request(method, '/api/v1/reportQueries/SYS_CUSTOMERS_BY_SELLER', body)
      expect(response.status, method).toBe(409)
      expect(response.body).toEqual(v1('resource-in-use'))
    }
  })

  it('deletes with 204 and answers 404 for an unknown code', async () => {
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_DEL'))
    expect((await t.requestAs(alice, 'DELETE', '/api/v1/reportQueries/Q_DEL')).status).toBe(204)
    const again = await t.requestAs(alice, 'DELETE', '/api/v1/reportQueries/Q_DEL')
    expect(again.status).toBe(404)
    expect(again.body).toEqual(v1('resource-not-found'))
  })

  it.each([
    ['PUT', '/api/v1/reportQueries/Q_EXEC/schedule'],
    ['GET', '/api/v1/reportQueries/Q_EXEC/schedule'],
    ['DELETE', '/api/v1/reportQueries/Q_EXEC/schedule'],
    ['GET', '/api/v1/reportQueries/Q_EXEC/executions/1'],
    ['GET', '/api/v1/reportQueries/Q_EXEC/executions/1/file?format=CSV'],
    ['GET', '/api/v1/reportExtracts'],
    ['GET', '/api/v1/reports/agedReceivables'],
    ['GET', '/api/v1/reports/agedReceivables/export'],
  ])('answers the deferred %s %s with 501 not-implemented', async (method, url) => {
    const response = await t.requestAs(alice, method, url, method === 'PUT' ? {} : undefined)
    expect(response.status).toBe(501)
    expect(response.body).toEqual(v1('not-implemented'))
    expect(response.body.message).toContain('not yet available')
  })
})

describe('reading saved queries through the Query API', () => {
  it('applies the same visibility to entity reportQuery, in lists, counts and get by id', async () => {
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_QAPI_PRIVATE', { visibility: 'PRIVATE' }))
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_QAPI_PROTECTED', { visibility: 'PROTECTED' }))
    await t.requestAs(alice, 'POST', '/api/v1/reportQueries', query('Q_QAPI_PUBLIC'))
    const filters = encodeURIComponent(JSON.stringify({ code: 'Q_QAPI_*' }))
    const codes = async (token: string) =>
      (
        (await t.requestAs(token, 'GET', `/api/v1/query/reportQuery?filters=${filters}&sortBy=code`)).body.data as {
          code: string
        }[]
      ).map((q) => q.code)
    expect(await codes(alice)).toEqual(['Q_QAPI_PRIVATE', 'Q_QAPI_PROTECTED', 'Q_QAPI_PUBLIC'])
    expect(await codes(carol)).toEqual(['Q_QAPI_PROTECTED', 'Q_QAPI_PUBLIC'])
    expect(await codes(bob)).toEqual(['Q_QAPI_PUBLIC'])
    expect(await codes(t.adminToken)).toEqual(['Q_QAPI_PRIVATE', 'Q_QAPI_PROTECTED', 'Q_QAPI_PUBLIC'])
    expect((await t.requestAs(bob, 'GET', `/api/v1/query/reportQuery/count?filters=${filters}`)).body.total).toBe(1)
    const privateId = (
      await t.request(
        'GET',
        `/api/v1/query/reportQuery?filters=${encodeURIComponent(JSON.stringify({ code: 'Q_QAPI_PRIVATE' }))}`,
      )
    ).body.data[0].id
    expect((await t.requestAs(bob, 'GET', `/api/v1/query/reportQuery/${privateId}`)).status).toBe(404)
    expect((await t.requestAs(alice, 'GET', `/api/v1/query/reportQuery/${privateId}`)).status).toBe(200)
  })
})
