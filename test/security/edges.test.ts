import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose'
import { buildApp, type App } from '../../src/app.ts'
import { TEST_ADMIN, TEST_BASE_URL, testAppDeps, useTestApp } from '../support/test-app.ts'

/**
 * What the penetration test found at the edges: a NUL byte anywhere in a request was a 500, a token without `exp` was
 * accepted forever, and no response carried a security header.
 */
const t = useTestApp()

const NUL = '\u0000'
const LONE_SURROGATE = '\ud800'
const TOKEN_URL = '/auth/realms/obol/protocol/openid-connect/token'
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

describe('text PostgreSQL cannot store', () => {
  const unstorable = { message: expect.stringContaining('cannot be stored') }

  it.each([
    ['a body field', { code: `A${NUL}B`, seller: 'MAIN' }, 'code'],
    [
      'a nested body field',
      { code: 'CUST_X', seller: 'MAIN', cfValues: { CF: [{ value: `x${NUL}` }] } },
      'cfValues.CF[0].value',
    ],
    ['a body key', { code: 'CUST_X', seller: 'MAIN', [`na${NUL}me`]: 'x' }, `na${NUL}me`],
    ['an unpaired surrogate', { code: 'CUST_X', seller: 'MAIN', name: `x${LONE_SURROGATE}y` }, 'name'],
  ])('refuses %s with 400 naming it, before anything is written', async (_what, body, field) => {
    const response = await t.request('POST', '/api/v1/customers', body)
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({
      status: 'FAIL',
      errorCode: 'VALIDATION_FAILED',
      details: [{ field, ...unstorable }],
    })
  })

  it('refuses a lone surrogate sent as a JSON escape', async () => {
    const response = await t.app.server.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
      payload: '{"code":"CUST_S","seller":"MAIN","name":"\\udc00"}',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ details: [{ field: 'name', ...unstorable }] })
  })

  it.each([
    ['a path parameter', '/api/v1/customers/A%00B', 'default', 'code'],
    ['a query parameter', '/api/v1/customers?sortBy=co%00de', 'default', 'sortBy'],
    [
      'a Query API filter holding a raw NUL',
      `/api/v1/query/customer?filters=${encodeURIComponent(`{"code":"A${NUL}"}`)}`,
      'query',
      'filters',
    ],
    [
      'a Query API filter value',
      `/api/v1/query/customer?filters=${encodeURIComponent('{"code":"A\\u0000"}')}`,
      'query',
      'filters.code',
    ],
    [
      'a Query API filter key',
      `/api/v1/query/customer?filters=${encodeURIComponent('{"co\\u0000de":"A"}')}`,
      'query',
      `filters.co${NUL}de`,
    ],
    ['a Query API path', '/api/v1/query/customer/1%00', 'query', 'id'],
    ['a report query code', '/api/v1/reportQueries/Q%00', 'v1', 'code'],
  ])('refuses %s with 400 in the route family’s shape', async (_what, url, family, field) => {
    const response = await t.request('GET', url)
    expect(response.status).toBe(400)
    if (family === 'v1') {
      expect(response.body).toEqual({
        status: 'FAIL',
        error_code: 'invalid-parameter',
        message: expect.stringContaining(`${field}: contains a character that cannot be stored`),
      })
    } else if (family === 'query') {
      // The Query API names a bad filter INVALID_FILTER and any other bad parameter INVALID_PARAMETER.
      const code = field.startsWith('filters') ? 'INVALID_FILTER' : 'INVALID_PARAMETER'
      expect(response.body).toMatchObject({ errorCode: code, code, details: [{ field, ...unstorable }] })
    } else {
      expect(response.body).toMatchObject({ errorCode: 'VALIDATION_FAILED', details: [{ field, ...unstorable }] })
    }
  })

  it('refuses a POST Query API body and a report query body holding NUL', async () => {
    const query = await t.request('POST', '/api/rest/v2/generic/all/customer', { filters: { code: `A${NUL}` } })
    expect(query.status).toBe(400)
    expect(query.body).toMatchObject({ code: 'INVALID_FILTER', details: [{ field: 'filters.code' }] })
    const report = await t.request('POST', '/api/v1/reportQueries', {
      code: 'Q1',
      targetEntity: 'Customer',
      visibility: 'PUBLIC',
      advancedQuery: { filters: { name: NUL } },
    })
    expect(report.status).toBe(400)
    expect(report.body.error_code).toBe('invalid-parameter')
  })

  it.each([
    ['client_id', form({ grant_type: 'client_credentials', client_id: `obol${NUL}`, client_secret: 'x' }), {}],
    ['client_secret', form({ grant_type: 'client_credentials', client_id: 'x', client_secret: `s${NUL}` }), {}],
    [
      'Basic credentials',
      form({ grant_type: 'client_credentials' }),
      { authorization: `Basic ${Buffer.from(`a%00b:secret`).toString('base64')}` },
    ],
  ])('answers NUL in the token request’s %s with an OAuth 400 invalid_request', async (field, payload, headers) => {
    const response = await t.app.server.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload,
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) })
    if (field !== 'Basic credentials') expect(response.json().error_description).toContain(field)
  })

  it('refuses NUL in a portal login with 400 naming the field', async () => {
    const response = await t.app.server.inject({
      method: 'POST',
      url: '/api/portal/login',
      payload: { username: `admin${NUL}`, password: 'whatever-password' },
    })
    expect(response.statusCode).toBe(400)
    expect(response.json().details).toEqual([{ field: 'username', ...unstorable }])
  })
})

/** The claims of a JWT, unverified. */
const claimsOf = (token: string): Record<string, any> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, any>

describe('built-in tokens', () => {
  async function clientToken() {
    const response = await t.app.server.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        grant_type: 'client_credentials',
        client_id: TEST_ADMIN.clientId,
        client_secret: TEST_ADMIN.clientSecret,
      }),
    })
    expect(response.statusCode).toBe(200)
    return response.json<{ access_token: string; scope: string; expires_in: number }>()
  }

  it('carry exp, and the roles also where Keycloak puts them, with azp, client_id and scope', async () => {
    const issued = await clientToken()
    const claims = claimsOf(issued.access_token)
    expect(claims.exp - claims.iat).toBe(300)
    expect(claims).toMatchObject({
      azp: TEST_ADMIN.clientId,
      client_id: TEST_ADMIN.clientId,
      scope: 'profile email',
      typ: 'Bearer',
    })
    expect(claims.resource_access.obol.roles).toEqual(claims.realm_access.roles)
    expect(claims.resource_access.obol.roles).toContain('queryExpert')
    expect(issued.scope).toBe('profile email')
  })

  it('from the portal carry no client_id and the same roles in both places', async () => {
    const login = await t.app.server.inject({
      method: 'POST',
      url: '/api/portal/login',
      payload: { username: TEST_ADMIN.username, password: TEST_ADMIN.password },
      remoteAddress: '10.77.0.1',
    })
    const cookie = String(login.headers['set-cookie']).split(';')[0]!
    const token = await t.app.server.inject({ method: 'GET', url: '/api/portal/token', headers: { cookie } })
    const claims = claimsOf(token.json<{ access_token: string }>().access_token)
    expect(claims.client_id).toBeUndefined()
    expect(claims.azp).toBe('obol-portal')
    expect(claims.resource_access.obol.roles).toEqual(claims.realm_access.roles)
  })

  async function signed(shape: (jwt: SignJWT) => SignJWT) {
    const { kid, key } = await (t.app as any).tokens.keys.active()
    const jwt = new SignJWT({ realm_access: { roles: ['accounts.customers.view'] } })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(`${TEST_BASE_URL}/auth/realms/obol`)
      .setAudience('obol')
      .setSubject('1')
    return shape(jwt).sign(key)
  }
  const now = () => Math.floor(Date.now() / 1000)

  it.each([
    ['without exp (signed with the real key)', (jwt: SignJWT) => jwt.setIssuedAt()],
    ['living longer than AUTH_TOKEN_TTL_SEC', (jwt: SignJWT) => jwt.setIssuedAt().setExpirationTime(now() + 301)],
    [
      'without iat, expiring later than AUTH_TOKEN_TTL_SEC from now',
      (jwt: SignJWT) => jwt.setExpirationTime(now() + 400),
    ],
  ])('are refused %s', async (_what, shape) => {
    const response = await t.requestAs(await signed(shape), 'GET', '/api/v1/sellers')
    expect(response.status).toBe(401)
    expect(response.headers['www-authenticate']).toContain('invalid_token')
  })

  it.each([
    ['living AUTH_TOKEN_TTL_SEC', (jwt: SignJWT) => jwt.setIssuedAt().setExpirationTime(now() + 300)],
    ['without iat, expiring within AUTH_TOKEN_TTL_SEC', (jwt: SignJWT) => jwt.setExpirationTime(now() + 200)],
  ])('are accepted %s', async (_what, shape) => {
    expect((await t.requestAs(await signed(shape), 'GET', '/api/v1/sellers')).status).toBe(200)
  })
})

describe('tokens of an external issuer', () => {
  let server: http.Server
  let external: App
  let issuer = ''
  const keys = generateKeyPair('ES256')

  beforeAll(async () => {
    const { publicKey } = await keys
    const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'ES256', use: 'sig' }
    server = http.createServer((request, response) => {
      response.setHeader('content-type', 'application/json')
      if (request.url === '/realms/acme/.well-known/openid-configuration')
        response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/certs` }))
      else if (request.url === '/realms/acme/certs') response.end(JSON.stringify({ keys: [jwk] }))
      else response.writeHead(404).end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/acme`
    external = await buildApp(
      testAppDeps(t.db.current, t.jobs, { AUTH_ISSUER_URL: issuer, AUTH_MAX_TOKEN_TTL_SEC: '3600' }),
    )
  })
  afterAll(async () => {
    await external.server.close()
    server.close()
  })

  async function call(claims: JWTPayload) {
    const token = await new SignJWT({ realm_access: { roles: ['accounts.customers.view'] }, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'ext-1' })
      .setIssuer(issuer)
      .setSubject('kc-user')
      .sign((await keys).privateKey)
    const response = await external.server.inject({
      method: 'GET',
      url: '/api/v1/sellers',
      headers: { authorization: `Bearer ${token}` },
    })
    return response.statusCode
  }
  const now = () => Math.floor(Date.now() / 1000)

  it('are refused without exp', async () => {
    expect(await call({ iat: now() })).toBe(401)
  })

  it('are refused when they live longer than AUTH_MAX_TOKEN_TTL_SEC', async () => {
    expect(await call({ iat: now(), exp: now() + 3601 })).toBe(401)
    expect(await call({ exp: now() + 7200 })).toBe(401)
  })

  it('are accepted within AUTH_MAX_TOKEN_TTL_SEC', async () => {
    expect(await call({ iat: now(), exp: now() + 3600 })).toBe(200)
  })
})

describe('security headers', () => {
  it('are on API answers, errors included: nosniff, no framing, no referrer, no HSTS over http', async () => {
    for (const response of [
      await t.request('GET', '/api/v1/sellers'),
      await t.requestAs(undefined, 'GET', '/api/v1/nothing'),
    ]) {
      expect(response.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      })
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'")
      expect(response.headers['strict-transport-security']).toBeUndefined()
    }
  })

  it('serve Swagger UI under a CSP that allows exactly what it loads: its own files, no inline script', async () => {
    const page = await t.app.server.inject({ method: 'GET', url: '/api/docs/' })
    expect(page.statusCode).toBe(200)
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/)
    expect(csp).not.toContain('upgrade-insecure-requests')
    const html = page.body
    // Every script is a file (an inline one would be blocked by script-src 'self'), and no handler attribute exists.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts.length).toBeGreaterThan(0)
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="/)
      expect(body!.trim()).toBe('')
    }
    expect(html).not.toMatch(/\son[a-z]+=/i)
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(5)
    for (const asset of [...assets, './json']) {
      expect(asset).not.toMatch(/^(https?:)?\/\//)
      const response = await t.app.server.inject({ method: 'GET', url: new URL(asset, 'http://x/api/docs/').pathname })
      expect([asset, response.statusCode]).toEqual([asset, 200])
    }
  })

  it('add HSTS and upgrade-insecure-requests when PUBLIC_URL is https', async () => {
    const secure = await buildApp({ ...testAppDeps(t.db.current, t.jobs), publicUrl: 'https://billing.example' })
    try {
      const response = await secure.server.inject({ method: 'GET', url: '/health/live' })
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000')
      expect(response.headers['content-security-policy']).toContain('upgrade-insecure-requests')
    } finally {
      await secure.server.close()
    }
  })
})
