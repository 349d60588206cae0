import { beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { SignJWT } from 'jose'
import { rows } from '../../src/kernel/db/database.ts'
import { registry } from '../../src/kernel/model/index.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { fullTextFields } from '../../src/modules/query/opencell.model.ts'
import { TEST_ADMIN, TEST_BASE_URL, useTestApp } from '../support/test-app.ts'

/**
 * The read side of Opencell's generic API v2 as two public clients use it, request for request: an MCP server for
 * Opencell (base URL `…/api/rest` + `/v2`, Keycloak client credentials, JSON headers) and the n8n Opencell node
 * (every path under the `/opencell` context path, OAuth2 against realm `opencell`). Each test sends what the client
 * sends and asserts the fields the client reads from the answer. The instance runs on the default realm (`obol`):
 * realm `opencell` is served beside it, so both kinds of client share it.
 */
const t = useTestApp()

interface Answer {
  status: number
  body: any
  text: string
  headers: Record<string, unknown>
}

let token = ''
let acmeId = 0
let otherSellerCustomerId = 0

/** The MCP server's client: Bearer token, JSON content type and accept, a JSON body whenever it has one. */
async function mcp(method: string, path: string, body?: unknown, query?: Record<string, string>): Promise<Answer> {
  const search = query ? `?${new URLSearchParams(query).toString()}` : ''
  return send(token, method, `/api/rest/v2${path}${search}`, body)
}

/** The n8n node: `request` with `json: true` always sends a body (`{}` by default), GET included. */
async function n8n(method: string, endpoint: string, body: unknown = {}): Promise<Answer> {
  return send(token, method, endpoint, body)
}

async function send(bearer: string, method: string, url: string, body?: unknown): Promise<Answer> {
  const response = await t.app.server.inject({
    method: method as 'GET',
    url,
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  })
  const text = response.body
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = text
  }
  return { status: response.statusCode, body: parsed, text, headers: response.headers }
}

/** Keycloak's client-credentials grant on `realm`, as both clients request it (client_secret_post). */
async function tokenOf(realm: string, secret = TEST_ADMIN.clientSecret) {
  return t.app.server.inject({
    method: 'POST',
    url: `/auth/realms/${realm}/protocol/openid-connect/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.clientId,
      client_secret: secret,
    }).toString(),
  })
}

const claimsOf = (jwt: string): any => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())

beforeAll(async () => {
  const response = await tokenOf('opencell')
  expect(response.statusCode).toBe(200)
  token = response.json<{ access_token: string }>().access_token

  const db = t.db.current.db
  await seedAccountsDemo(db)
  await db.execute(sql`insert into seller (code, description, parent_seller_id, creator)
    select 'OTHER', 'Another seller', id, 'test' from seller where code = 'MAIN'`)
  await db.execute(sql`insert into customer (code, description, name, seller_id, creator)
    select c.code, c.description, c.name, s.id, 'test' from seller s,
      (values ('ACME_01', 'Rocket parts', 'ACME Rocket Works', 'MAIN'), ('ACME_02', 'Anvils', 'Acme Anvil Supply', 'MAIN'),
              ('OTHER_01', 'Other', 'Zed Other', 'OTHER')) as c(code, description, name, seller)
    where s.code = c.seller`)
  const ids = await rows<{ code: string; id: string }>(
    db,
    sql`select code, id from customer where code in ('ACME_01', 'OTHER_01')`,
  )
  acmeId = Number(ids.find((r) => r.code === 'ACME_01')!.id)
  otherSellerCustomerId = Number(ids.find((r) => r.code === 'OTHER_01')!.id)
})

describe('the MCP server for Opencell', () => {
  it('list_entities: GET /generic/entities answers { entities: [names] }, filtered and with full names on request', async () => {
    const all = await mcp('GET', '/generic/entities')
    expect(all.status).toBe(200)
    expect(all.body.entities).toContain('Customer')
    expect(all.body.entities).toContain('WalletOperation')

    const business = await mcp('GET', '/generic/entities', undefined, {
      onlyBusinessEntities: 'true',
      withFullName: 'true',
    })
    expect(business.status).toBe(200)
    expect(business.body.entities).toContainEqual({ name: 'Customer', fullName: 'org.obol.model.crm.Customer' })
    expect(business.body.entities.length).toBeLessThan(all.body.entities.length)
  })

  it('describe_entity: GET /generic/entities/{entity}?depth=&filter= answers the field map, relations isEntity "true"', async () => {
    const described = await mcp('GET', '/generic/entities/Customer', undefined, { depth: '1', filter: '' })
    expect(described.status).toBe(200)
    const map = described.body
    expect(map.code).toEqual({
      fullQualifiedTypeName: 'class java.lang.String',
      shortTypeName: 'String',
      isEntity: 'false',
      type: 'string',
    })
    expect(map.seller).toMatchObject({
      fullQualifiedTypeName: 'class org.obol.model.admin.Seller',
      shortTypeName: 'Seller',
      isEntity: 'true',
      type: 'manyToOne',
    })
    // depth 1: the related entity's own fields, and no further.
    expect(map.seller.entityDetails.code.isEntity).toBe('false')
    const sellerRelations = Object.values(map.seller.entityDetails as Record<string, any>).filter(
      (f) => f.isEntity === 'true',
    )
    expect(sellerRelations.length).toBeGreaterThan(0)
    for (const relation of sellerRelations) expect(relation.entityDetails).toBeUndefined()
    // Keys come sorted, as Opencell sorts attributes.
    expect(Object.keys(map)).toEqual([...Object.keys(map)].sort())

    const flat = await mcp('GET', '/generic/entities/Customer', undefined, { depth: '0', filter: '' })
    expect(flat.body.seller.entityDetails).toBeUndefined()

    const filtered = await mcp('GET', '/generic/entities/customer', undefined, { depth: '1', filter: 'MAIL' })
    expect(Object.keys(filtered.body)).toContain('email')
    expect(Object.keys(filtered.body)).not.toContain('code')
  })

  it('generic_list: fullTextFilter keeps the rows holding every word in a text field, in any case', async () => {
    const both = await mcp('POST', '/generic/all/Customer', { offset: 0, limit: 50, fullTextFilter: 'acme' })
    expect(both.status).toBe(200)
    expect(both.body.data.map((c: { code: string }) => c.code).sort()).toEqual(['ACME_01', 'ACME_02'])
    expect(both.body).toMatchObject({ total: 2, offset: 0, limit: 50 })

    const one = await mcp('POST', '/generic/all/Customer', {
      offset: 0,
      limit: 50,
      fullTextFilter: 'rOCKet  acme',
      genericFields: ['code', 'name'],
      sortBy: 'code',
      sortOrder: 'ASCENDING',
    })
    expect(one.body.data).toEqual([{ id: acmeId, code: 'ACME_01', name: 'ACME Rocket Works' }])

    const none = await mcp('POST', '/generic/all/Customer', { offset: 0, limit: 50, fullTextFilter: 'acme zebra' })
    expect(none.body).toMatchObject({ total: 0, data: [] })

    // Wildcards of LIKE are plain characters here.
    const percent = await mcp('POST', '/generic/all/Customer', { offset: 0, limit: 50, fullTextFilter: '%' })
    expect(percent.body.total).toBe(0)

    const tooMany = await mcp('POST', '/generic/all/Customer', { fullTextFilter: Array(21).fill('a').join(' ') })
    expect(tooMany.status).toBe(400)
    expect(tooMany.text).toContain('fullTextFilter')
  })

  it('generic_get: POST /generic/{entity}/{id} with genericFields, nestedEntities, nestedDepth answers { data }', async () => {
    const whole = await mcp('POST', `/generic/Customer/${acmeId}`, {})
    expect(whole.status).toBe(200)
    expect(whole.body.data).toMatchObject({
      id: acmeId,
      code: 'ACME_01',
      name: 'ACME Rocket Works',
      seller: { id: expect.any(Number) },
    })

    const some = await mcp('POST', `/generic/Customer/${acmeId}`, {
      genericFields: ['code', 'description'],
      nestedEntities: ['seller'],
      nestedDepth: 0,
    })
    expect(some.status).toBe(200)
    expect(some.body.data).toMatchObject({
      id: acmeId,
      code: 'ACME_01',
      description: 'Rocket parts',
      seller: { code: 'MAIN' },
    })

    const missing = await mcp('POST', '/generic/Customer/999999', {})
    expect(missing.status).toBe(404)
  })

  it('generic_create, generic_update, generic_delete: 405 with Allow, naming the v1 resource, and nothing changes', async () => {
    const before = await rows(t.db.current.db, sql`select count(*)::int as n, max(updated) as u from customer`)
    const create = await mcp('POST', '/generic/Customer', { code: 'NEW_1', name: 'New' })
    expect(create.status).toBe(405)
    expect(create.headers.allow).toBe('GET, HEAD')
    expect(create.body.message).toContain('/api/v1/customers')

    const update = await mcp('PUT', `/generic/Customer/${acmeId}`, { name: 'Renamed' })
    expect(update.status).toBe(405)
    expect(update.headers.allow).toBe('GET, HEAD, POST')
    expect(update.body.message).toContain('/api/v1/customers')

    const remove = await mcp('DELETE', `/generic/Customer/${acmeId}`)
    expect(remove.status).toBe(405)
    expect(remove.headers.allow).toBe('GET, HEAD, POST')

    const after = await rows(t.db.current.db, sql`select count(*)::int as n, max(updated) as u from customer`)
    expect(after).toEqual(before)
    const still = await mcp('POST', `/generic/Customer/${acmeId}`, { genericFields: ['name'] })
    expect(still.body.data.name).toBe('ACME Rocket Works')
  })

  it('opencell_version: GET /version answers [{ name, version, commit }]', async () => {
    const version = await mcp('GET', '/version')
    expect(version.status).toBe(200)
    expect(version.body).toEqual([
      { name: 'Obol', version: expect.stringMatching(/^\d+\.\d+\.\d+/), commit: expect.any(String) },
    ])
    const generic = await mcp('GET', '/generic/version')
    expect(generic.body).toEqual(version.body)
  })
})

describe('the n8n Opencell node (every path under /opencell)', () => {
  it('getEntities and getNestedEntities: the entity picker and the relations of an entity', async () => {
    const entities = await n8n('GET', '/opencell/api/rest/v2/generic/entities')
    expect(entities.status).toBe(200)
    expect(entities.body.entities).toContain('BillingAccount')

    const described = await n8n('GET', '/opencell/api/rest/v2/generic/entities/billingAccount')
    expect(described.status).toBe(200)
    const nested = Object.keys(described.body).filter((key) => described.body[key].isEntity === 'true')
    expect(nested).toEqual(expect.arrayContaining(['customerAccount', 'billingCycle', 'tradingCurrency']))
    expect(nested).not.toContain('code')
  })

  it('get: POST /generic/{entity}/{id} with limit and nestedEntities; the node reads data', async () => {
    const got = await n8n('POST', `/opencell/api/rest/v2/generic/customer/${acmeId}`, {
      limit: 100,
      nestedEntities: ['seller'],
    })
    expect(got.status).toBe(200)
    expect(got.body.data).toMatchObject({ code: 'ACME_01', seller: { code: 'MAIN' } })
  })

  it('search and the option loaders: POST /generic/all/{entity}; the node reads data[].code and description', async () => {
    const search = await n8n('POST', '/opencell/api/rest/v2/generic/all/customer', { filters: { code: 'ACME_02' } })
    expect(search.status).toBe(200)
    expect(search.body.data).toHaveLength(1)
    expect(search.body.data[0]).toMatchObject({ code: 'ACME_02', description: 'Anvils' })

    const userAccounts = await n8n('POST', '/opencell/api/rest/v2/generic/all/userAccount', { genericFields: ['code'] })
    expect(userAccounts.status).toBe(200)
    expect(userAccounts.body.data[0]).toEqual({ id: expect.any(Number), code: expect.stringMatching(/^UA_/) })

    const offers = await n8n('POST', '/opencell/api/rest/v2/generic/all/offerTemplate', { genericFields: ['code'] })
    expect(offers.status).toBe(200)
    expect(Array.isArray(offers.body.data)).toBe(true)
  })

  it('the customer form: its title list is POST /generic/all/title, read as data[].code and description', async () => {
    const titles = await n8n('POST', '/opencell/api/rest/v2/generic/all/title', {
      genericFields: ['code', 'description', 'isCompany'],
      sortBy: 'code',
    })
    expect(titles.status).toBe(200)
    expect(titles.body.data.map(({ id: _id, ...title }: { id: number }) => title)).toEqual([
      { code: 'COMPANY', description: 'Company', isCompany: true },
      { code: 'MR', description: 'Mr', isCompany: false },
      { code: 'MRS', description: 'Mrs', isCompany: false },
      { code: 'MS', description: 'Ms', isCompany: false },
    ])
    const customer = await n8n('POST', '/opencell/api/rest/v2/generic/all/customer', {
      genericFields: ['code', 'title.code'],
      filters: { code: 'CUST_001' },
    })
    expect(customer.body.data[0].title).toEqual({ code: 'MR' })
  })

  it('writes under the context path are refused the same way', async () => {
    const update = await n8n('PUT', `/opencell/api/rest/v2/generic/customer/${acmeId}`, { name: 'x' })
    expect(update.status).toBe(405)
    expect(update.headers.allow).toBe('GET, HEAD, POST')
  })
})

describe('get by id over GET and HEAD, roles and row-level security', () => {
  it('GET /generic/{entity} lists with the Query API parameters, fullTextFilter included', async () => {
    const listed = await send(token, 'GET', '/opencell/api/rest/v2/generic/customer?fullTextFilter=ROCKET&fields=code')
    expect(listed.status).toBe(200)
    expect(listed.body).toMatchObject({ total: 1, data: [{ id: acmeId, code: 'ACME_01' }] })
    const demo = await send(token, 'POST', '/api/rest/v2/generic/all/customer', {
      fullTextFilter: 'demo 007',
      genericFields: ['code', 'name'],
    })
    expect(demo.body.data.map((c: { code: string }) => c.code)).toEqual(['CUST_007'])
  })

  it('GET /generic/{entity}/{id} answers { data }; HEAD answers 200 or 404 with no body', async () => {
    for (const prefix of ['/api/rest/v2', '/opencell/api/rest/v2']) {
      const got = await send(token, 'GET', `${prefix}/generic/Customer/${acmeId}?fields=code`)
      expect(got.status).toBe(200)
      expect(got.body).toEqual({ data: { id: acmeId, code: 'ACME_01' } })

      const head = await send(token, 'HEAD', `${prefix}/generic/Customer/${acmeId}`)
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      const headMissing = await send(token, 'HEAD', `${prefix}/generic/Customer/999999`)
      expect(headMissing.status).toBe(404)
      expect(headMissing.text).toBe('')
    }
  })

  it('needs a token and the entity view role; a seller-restricted caller does not see other sellers’ rows', async () => {
    const anonymous = await send('', 'GET', '/opencell/api/rest/v2/generic/entities')
    expect(anonymous.status).toBe(401)

    const walletViewer = await t.tokenWithRoles(['billing.wallets.view'])
    const forbidden = await send(walletViewer, 'POST', `/api/rest/v2/generic/Customer/${acmeId}`, {})
    expect(forbidden.status).toBe(403)
    const forbiddenWrite = await send(walletViewer, 'DELETE', `/api/rest/v2/generic/Customer/${acmeId}`)
    expect(forbiddenWrite.status).toBe(403)

    const mainOnly = await t.tokenWithRoles(['queryUser'], { sellerCodes: ['MAIN'] })
    const own = await send(mainOnly, 'POST', `/api/rest/v2/generic/Customer/${acmeId}`, {})
    expect(own.status).toBe(200)
    const other = await send(mainOnly, 'POST', `/api/rest/v2/generic/Customer/${otherSellerCustomerId}`, {})
    expect(other.status).toBe(404)
    const head = await send(mainOnly, 'HEAD', `/api/rest/v2/generic/Customer/${otherSellerCustomerId}`)
    expect(head.status).toBe(404)
    const listed = await send(mainOnly, 'POST', '/api/rest/v2/generic/all/Customer', { fullTextFilter: 'other' })
    expect(listed.body.data.map((c: { code: string }) => c.code)).not.toContain('OTHER_01')
  })
})

describe('realm opencell beside the configured realm, on one instance', () => {
  it('issues tokens on both realms, each naming its own realm as issuer, from the same clients', async () => {
    const native = await tokenOf('obol')
    expect(native.statusCode).toBe(200)
    expect(claimsOf(native.json().access_token).iss).toBe(`${TEST_BASE_URL}/auth/realms/obol`)
    expect(claimsOf(token).iss).toBe(`${TEST_BASE_URL}/auth/realms/opencell`)
    expect(claimsOf(token).azp).toBe(TEST_ADMIN.clientId)
    // One client, one secret: a wrong one is refused on either realm.
    expect((await tokenOf('opencell', 'not-the-secret-0123456789')).statusCode).toBe(401)
    expect((await tokenOf('keycloak')).statusCode).toBe(404)
  })

  it('accepts a token of either realm on the whole API, Opencell paths and native ones alike', async () => {
    const native = (await tokenOf('obol')).json().access_token as string
    for (const bearer of [native, token]) {
      expect((await send(bearer, 'POST', '/opencell/api/rest/v2/generic/all/customer', {})).status).toBe(200)
      expect((await send(bearer, 'GET', '/api/v1/customers/ACME_01')).status).toBe(200)
    }
    expect((await send(token, 'GET', '/api/v1/auth/session')).body.realm).toBe('opencell')
    expect((await send(native, 'GET', '/api/v1/auth/session')).body.realm).toBe('obol')
  })

  it('serves each realm its discovery document over the same signing keys', async () => {
    const get = async (url: string): Promise<any> => (await t.app.server.inject({ method: 'GET', url })).json()
    for (const realm of ['obol', 'opencell']) {
      const issuer = `${TEST_BASE_URL}/auth/realms/${realm}`
      expect(await get(`/auth/realms/${realm}/.well-known/openid-configuration`)).toMatchObject({
        issuer,
        token_endpoint: `${issuer}/protocol/openid-connect/token`,
        jwks_uri: `${issuer}/protocol/openid-connect/certs`,
      })
    }
    const keys = await get('/auth/realms/opencell/protocol/openid-connect/certs')
    expect(keys.keys.length).toBeGreaterThan(0)
    expect(keys).toEqual(await get('/auth/realms/obol/protocol/openid-connect/certs'))
  })

  it('refuses a token signed with the same keys for a realm it does not serve', async () => {
    const { kid, key } = await t.app.tokens.keys.active()
    const now = Math.floor(Date.now() / 1000)
    const claims = { ...claimsOf(token), iss: `${TEST_BASE_URL}/auth/realms/acme`, iat: now, exp: now + 60 }
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(key)
    const refused = await send(forged, 'GET', '/api/v1/customers/ACME_01')
    expect(refused.status).toBe(401)
    // The same claims under the served realm's issuer pass: the issuer alone was refused.
    const good = await new SignJWT({ ...claims, iss: `${TEST_BASE_URL}/auth/realms/opencell` })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .sign(key)
    expect((await send(good, 'GET', '/api/v1/customers/ACME_01')).status).toBe(200)
  })
})

describe('fullTextFilter on huge entities', () => {
  it('has a trigram index on every field it searches', async () => {
    const indexes = await rows<{ indexdef: string }>(
      t.db.current.db,
      sql`select indexdef from pg_indexes where indexdef like '%gin_trgm_ops%'`,
    )
    const huge = registry.queryable().filter((e) => e.huge)
    expect(huge.length).toBeGreaterThan(0)
    for (const entity of huge) {
      for (const field of fullTextFields(entity)) {
        const column = entity.fields.get(field)!.column
        // A partitioned table's index reads `ON ONLY` (each partition has its own).
        const indexed = indexes.some(
          (i) =>
            i.indexdef.includes(`ON public.${entity.tableName} USING gin (lower(${column}) gin_trgm_ops)`) ||
            i.indexdef.includes(`ON ONLY public.${entity.tableName} USING gin (lower(${column}) gin_trgm_ops)`),
        )
        expect(indexed, `${entity.name}.${field}`).toBe(true)
      }
    }
  })
})
