import { describe, expect, it, vi } from 'vitest'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { buildApp } from '../../src/app.ts'
import { useTestApp, testAppDeps, TEST_ADMIN, TEST_BASE_URL } from '../support/test-app.ts'

const t = useTestApp()

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

async function tokenRequest(payload: string, headers: Record<string, string> = {}) {
  const response = await t.app.server.inject({
    method: 'POST',
    url: '/auth/realms/obol/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload,
  })
  return { status: response.statusCode, body: response.json(), headers: response.headers }
}

describe('token issuer', () => {
  it('issues an ES256 token with the documented claims for client_secret_post', async () => {
    const response = await tokenRequest(
      form({
        grant_type: 'client_credentials',
        client_id: TEST_ADMIN.clientId,
        client_secret: TEST_ADMIN.clientSecret,
      }),
    )
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 300 })
    expect(response.headers['cache-control']).toBe('no-store')
    const [header, payload] = (response.body.access_token as string)
      .split('.')
      .slice(0, 2)
      .map((p): any => JSON.parse(Buffer.from(p, 'base64url').toString()))
    expect(header).toMatchObject({ alg: 'ES256', kid: expect.any(String) })
    expect(payload).toMatchObject({
      iss: `${TEST_BASE_URL}/auth/realms/obol`,
      sub: expect.any(String),
      aud: 'obol',
      azp: TEST_ADMIN.clientId,
      preferred_username: `service-account-${TEST_ADMIN.clientId}`,
      groups: ['Platform Admin', 'Query Administrators'],
      jti: expect.any(String),
    })
    expect(payload.exp - payload.iat).toBe(300)
    expect(payload.realm_access.roles).toHaveLength(76)
  })

  it('accepts client_secret_basic', async () => {
    const basic = Buffer.from(`${TEST_ADMIN.clientId}:${TEST_ADMIN.clientSecret}`).toString('base64')
    const response = await tokenRequest(form({ grant_type: 'client_credentials' }), { authorization: `Basic ${basic}` })
    expect(response.status).toBe(200)
  })

  it.each([
    [
      form({ grant_type: 'client_credentials', client_id: TEST_ADMIN.clientId, client_secret: 'wrong' }),
      401,
      'invalid_client',
    ],
    [form({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' }), 401, 'invalid_client'],
    [
      form({ grant_type: 'password', client_id: TEST_ADMIN.clientId, client_secret: TEST_ADMIN.clientSecret }),
      400,
      'unsupported_grant_type',
    ],
    [form({ client_id: TEST_ADMIN.clientId, client_secret: TEST_ADMIN.clientSecret }), 400, 'invalid_request'],
    [form({ grant_type: 'client_credentials', client_id: TEST_ADMIN.clientId }), 400, 'invalid_request'],
  ])('answers %s with %i %s', async (payload, status, error) => {
    const response = await tokenRequest(payload)
    expect(response.status).toBe(status)
    expect(response.body).toEqual({ error, error_description: expect.any(String) })
  })

  it('throttles repeated failures of one client from one address with 429 and Retry-After, even with the right secret', async () => {
    const bot = await t.request('POST', '/api/v1/clients', { clientId: 'flaky-bot', groups: [] })
    const attempt = (secret: string) =>
      t.app.server.inject({
        method: 'POST',
        url: '/auth/realms/obol/protocol/openid-connect/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ grant_type: 'client_credentials', client_id: 'flaky-bot', client_secret: secret }),
        remoteAddress: '10.0.0.1',
      })
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const response = await attempt('wrong')
      statuses.push(response.statusCode)
      if (response.statusCode === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    expect((await attempt(bot.body.clientSecret as string)).statusCode).toBe(429)
  })

  it('serves the JWKS and the discovery document', async () => {
    const jwks = await t.requestAs(undefined, 'GET', '/auth/realms/obol/protocol/openid-connect/certs')
    expect(jwks.body.keys[0]).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: expect.any(String),
    })
    expect(jwks.body.keys[0].d).toBeUndefined()
    const discovery = await t.requestAs(undefined, 'GET', '/auth/realms/obol/.well-known/openid-configuration')
    expect(discovery.body).toMatchObject({
      issuer: `${TEST_BASE_URL}/auth/realms/obol`,
      token_endpoint: `${TEST_BASE_URL}/auth/realms/obol/protocol/openid-connect/token`,
      jwks_uri: `${TEST_BASE_URL}/auth/realms/obol/protocol/openid-connect/certs`,
    })
  })

  it('keeps a retired key in the JWKS so its tokens stay valid after rotation', async () => {
    const before = t.adminToken
    const keys = (t.app as any).tokens.keys
    await keys.create(true)
    const jwks = await t.requestAs(undefined, 'GET', '/auth/realms/obol/protocol/openid-connect/certs')
    expect(jwks.body.keys.length).toBeGreaterThanOrEqual(2)
    expect((await t.requestAs(before, 'GET', '/api/v1/roles')).status).toBe(200)
  })
})

describe('verification', () => {
  it('refuses a call without a token with 401 and WWW-Authenticate', async () => {
    const response = await t.requestAs(undefined, 'GET', '/api/v1/sellers')
    expect(response.status).toBe(401)
    expect(response.headers['www-authenticate']).toBe('Bearer realm="obol"')
    expect(response.body).toMatchObject({ status: 'FAIL', errorCode: 'UNAUTHORIZED' })
  })

  it('refuses a token signed by another key', async () => {
    const { privateKey } = await generateKeyPair('ES256')
    const payload = JSON.parse(Buffer.from(t.adminToken.split('.')[1]!, 'base64url').toString())
    const header = JSON.parse(Buffer.from(t.adminToken.split('.')[0]!, 'base64url').toString())
    const forged = await new SignJWT(payload).setProtectedHeader(header).sign(privateKey)
    const response = await t.requestAs(forged, 'GET', '/api/v1/sellers')
    expect(response.status).toBe(401)
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"')
  })

  it('refuses an expired token and a garbage token', async () => {
    expect((await t.requestAs('not.a.token', 'GET', '/api/v1/sellers')).status).toBe(401)
    const keys = (t.app as any).tokens.keys
    const { kid, key } = await keys.active()
    const expired = await new SignJWT({ realm_access: { roles: ['accounts.customers.view'] } })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(`${TEST_BASE_URL}/auth/realms/obol`)
      .setAudience('obol')
      .setSubject('1')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 600)
      .sign(key)
    const response = await t.requestAs(expired, 'GET', '/api/v1/sellers')
    expect(response.status).toBe(401)
    expect(response.body.message).toBe('The access token has expired')
  })

  it('checks a token again once it has expired, even one it has seen before', async () => {
    const keys = (t.app as any).tokens.keys
    const { kid, key } = await keys.active()
    const now = Math.floor(Date.now() / 1000)
    const token = await new SignJWT({ realm_access: { roles: ['accounts.customers.view'] } })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(`${TEST_BASE_URL}/auth/realms/obol`)
      .setAudience('obol')
      .setSubject('1')
      .setIssuedAt(now)
      .setExpirationTime(now + 120)
      .sign(key)
    expect((await t.requestAs(token, 'GET', '/api/v1/sellers')).status).toBe(200)
    expect((await t.requestAs(token, 'GET', '/api/v1/sellers')).status).toBe(200)
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      // Two hours later: past the expiry and the 30-second clock tolerance.
      vi.setSystemTime(Date.now() + 2 * 3600_000)
      const response = await t.requestAs(token, 'GET', '/api/v1/sellers')
      expect(response.status).toBe(401)
      expect(response.body.message).toBe('The access token has expired')
    } finally {
      vi.useRealTimers()
    }
  })

  it('returns the session of the caller', async () => {
    const response = await t.request('GET', '/api/v1/auth/session')
    expect(response.body).toMatchObject({
      username: `service-account-${TEST_ADMIN.clientId}`,
      clientId: TEST_ADMIN.clientId,
      realm: 'obol',
      groups: ['Platform Admin', 'Query Administrators'],
    })
    expect(response.body.roles).toContain('queryExpert')
    expect(Date.parse(response.body.expiresAt)).toBeGreaterThan(Date.now())
  })
})

describe('roles and groups', () => {
  it('lists the 73 roles plus the three query roles', async () => {
    const response = await t.request('GET', '/api/v1/roles')
    expect(response.body.total).toBe(76)
    const names = response.body.data.map((r: { name: string }) => r.name)
    expect(names).toEqual(
      expect.arrayContaining([
        'api.jobs.run',
        'finance.reporting.manage',
        'queryUser',
        'queryExpert',
        'queryManagement',
      ]),
    )
    expect(names.filter((n: string) => n.startsWith('connect:'))).toEqual([])
  })

  it('creates the six built-in groups, which cannot be deleted or renamed or change roles, but can change description', async () => {
    const list = await t.request('GET', '/api/v1/groups')
    const builtIn = list.body.data.filter((g: { builtIn: boolean }) => g.builtIn).map((g: { name: string }) => g.name)
    expect(builtIn.sort()).toEqual([
      'Account Manager',
      'Billing Manager',
      'Catalog Manager',
      'Finance Manager',
      'Platform Admin',
      'Viewer',
    ])
    const viewer = await t.request('GET', '/api/v1/groups/Viewer')
    expect(viewer.body.roles).toHaveLength(36)
    expect((await t.request('DELETE', '/api/v1/groups/Viewer')).status).toBe(409)
    expect((await t.request('PUT', '/api/v1/groups/Viewer', { name: 'Lookers' })).status).toBe(409)
    expect((await t.request('PUT', '/api/v1/groups/Viewer', { roles: ['api.users.view'] })).status).toBe(409)
    const described = await t.request('PUT', '/api/v1/groups/Viewer', { description: 'Read-only staff' })
    expect(described.status).toBe(200)
    expect(described.body.description).toBe('Read-only staff')
    expect(described.body.roles).toHaveLength(36)
  })

  it('keeps one of two concurrent creations of the same group', async () => {
    const results = await Promise.all(
      [1, 2].map(() => t.request('POST', '/api/v1/groups', { name: 'Twins', roles: ['api.users.view'] })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 409])
  })

  it('manages custom groups and names unknown roles', async () => {
    const bad = await t.request('POST', '/api/v1/groups', {
      name: 'Integrations',
      roles: ['catalog.charges.manage', 'catalog.everything.manage', 'queryGod'],
    })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('unknown roles: catalog.everything.manage, queryGod')
    const created = await t.request('POST', '/api/v1/groups', {
      name: 'Integrations',
      description: 'Pipelines',
      roles: ['catalog.charges.view'],
    })
    expect(created.status).toBe(201)
    expect(
      (await t.request('POST', '/api/v1/groups', { name: 'Integrations', roles: ['catalog.charges.view'] })).status,
    ).toBe(409)
    const renamed = await t.request('PUT', '/api/v1/groups/Integrations', {
      name: 'Pipelines',
      roles: ['catalog.charges.view', 'catalog.charges.manage'],
    })
    expect(renamed.body).toMatchObject({ name: 'Pipelines', roles: ['catalog.charges.manage', 'catalog.charges.view'] })
    // A group grants something: none, or no roles at all, is refused naming the field (created or changed).
    for (const [method, url, body] of [
      ['POST', '/api/v1/groups', { name: 'Empty' }],
      ['POST', '/api/v1/groups', { name: 'Empty', roles: [] }],
      ['PUT', '/api/v1/groups/Pipelines', { roles: [] }],
    ] as const) {
      const refused = await t.request(method, url, body)
      expect([refused.status, refused.body.details]).toEqual([
        400,
        [{ field: 'roles', message: 'a group needs at least one role' }],
      ])
    }
    expect((await t.request('GET', '/api/v1/groups/Pipelines')).body.roles).toHaveLength(2)
    expect((await t.request('DELETE', '/api/v1/groups/Pipelines')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/groups/Pipelines')).status).toBe(404)
  })

  it('gives a Catalog Manager client catalog roles but 403 on admin routes, naming the role', async () => {
    const client = await t.request('POST', '/api/v1/clients', { clientId: 'catalog-bot', groups: ['Catalog Manager'] })
    expect(client.status).toBe(201)
    expect(client.body.clientSecret).toMatch(/^[\w-]{43}$/)
    expect((await t.request('GET', '/api/v1/clients/catalog-bot')).body.clientSecret).toBeUndefined()
    const token = (
      await tokenRequest(
        form({ grant_type: 'client_credentials', client_id: 'catalog-bot', client_secret: client.body.clientSecret }),
      )
    ).body.access_token
    expect((await t.requestAs(token, 'GET', '/api/v1/roles')).status).toBe(200)
    const forbidden = await t.requestAs(token, 'POST', '/api/v1/groups', { name: 'Sneaky' })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toEqual({
      status: 'FAIL',
      errorCode: 'FORBIDDEN',
      message: 'This operation needs the role api.groups.manage',
    })
  })

  it('drops a role removed from a group from the next token', async () => {
    const token = await t.tokenWithRoles(['accounts.customers.view', 'api.settings.view'])
    expect((await t.requestAs(token, 'GET', '/api/v1/sellers')).status).toBe(200)
    const groupName = (await t.requestAs(token, 'GET', '/api/v1/auth/session')).body.groups[0]
    await t.request('PUT', `/api/v1/groups/${encodeURIComponent(groupName)}`, { roles: ['api.settings.view'] })
    const client = `${groupName}-client`
    const rotated = await t.request('POST', `/api/v1/clients/${client}/secret`)
    const next = (
      await tokenRequest(
        form({ grant_type: 'client_credentials', client_id: client, client_secret: rotated.body.clientSecret }),
      )
    ).body.access_token
    expect((await t.requestAs(next, 'GET', '/api/v1/sellers')).status).toBe(403)
    expect((await t.requestAs(next, 'GET', '/api/v1/languages')).status).toBe(200)
  })

  it('adds and removes members through the group', async () => {
    await t.request('POST', '/api/v1/users', {
      username: 'ada',
      email: 'ada@example.com',
      password: 'correct horse battery',
    })
    const added = await t.request('POST', '/api/v1/groups/Viewer/members', { username: 'ada' })
    expect(added.body.members).toContainEqual({ username: 'ada', serviceAccount: false })
    expect((await t.request('GET', '/api/v1/users/ada')).body.groups).toEqual(['Viewer'])
    expect((await t.request('DELETE', '/api/v1/groups/Viewer/members/ada')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/users/ada')).body.groups).toEqual([])
    const unknown = await t.request('POST', '/api/v1/groups/Viewer/members', { username: 'nobody' })
    expect(unknown.status).toBe(400)
  })
})

describe('portal session', () => {
  async function login(username: string, password: string, remoteAddress = '127.0.0.1') {
    return t.app.server.inject({
      method: 'POST',
      url: '/api/portal/login',
      payload: { username, password },
      remoteAddress,
    })
  }

  it('creates a group with the session cookie and the CSRF header, and refuses without the header', async () => {
    const response = await login(TEST_ADMIN.username, TEST_ADMIN.password)
    expect(response.statusCode).toBe(200)
    const setCookie = String(response.headers['set-cookie'])
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    const cookie = setCookie.split(';')[0]!
    const { csrfToken } = response.json()
    const withoutCsrf = await t.app.server.inject({
      method: 'POST',
      url: '/api/portal/groups',
      headers: { cookie },
      payload: { name: 'Portal group' },
    })
    expect(withoutCsrf.statusCode).toBe(403)
    const created = await t.app.server.inject({
      method: 'POST',
      url: '/api/portal/groups',
      headers: { cookie, 'x-csrf-token': csrfToken },
      payload: { name: 'Portal group', description: 'made in the portal', roles: ['catalog.offers.view'] },
    })
    expect(created.statusCode).toBe(201)
    expect(created.json()).toMatchObject({ name: 'Portal group', roles: ['catalog.offers.view'], builtIn: false })
    const bearerOnly = await t.request('POST', '/api/portal/groups', { name: 'Bearer group' })
    expect(bearerOnly.status).toBe(401)

    const token = await t.app.server.inject({ method: 'GET', url: '/api/portal/token', headers: { cookie } })
    expect(token.statusCode).toBe(200)
    const session = await t.requestAs(token.json().access_token, 'GET', '/api/v1/auth/session')
    expect(session.body.username).toBe(TEST_ADMIN.username)

    const logout = await t.app.server.inject({
      method: 'POST',
      url: '/api/portal/logout',
      headers: { cookie, 'x-csrf-token': csrfToken },
    })
    expect(logout.statusCode).toBe(204)
    expect(
      (await t.app.server.inject({ method: 'GET', url: '/api/portal/token', headers: { cookie } })).statusCode,
    ).toBe(401)
  })

  it('ends the user’s other sessions on a password change through the portal, and all on one by an admin', async () => {
    const group = await t.request('POST', '/api/v1/groups', {
      name: 'Password changers',
      roles: ['api.users.view', 'api.users.manage'],
    })
    expect(group.status).toBe(201)
    const user = await t.request('POST', '/api/v1/users', {
      username: 'portal-user',
      password: 'first-password-1',
      groups: ['Password changers'],
    })
    expect(user.status).toBe(201)
    const cookieOf = async (password: string) => {
      const response = await login('portal-user', password)
      expect(response.statusCode).toBe(200)
      return String(response.headers['set-cookie']).split(';')[0]!
    }
    const tokenStatus = async (cookie: string) =>
      (await t.app.server.inject({ method: 'GET', url: '/api/portal/token', headers: { cookie } })).statusCode
    const portalToken = async (cookie: string) =>
      (await t.app.server.inject({ method: 'GET', url: '/api/portal/token', headers: { cookie } })).json()
        .access_token as string
    const [laptop, phone, tablet] = [
      await cookieOf('first-password-1'),
      await cookieOf('first-password-1'),
      await cookieOf('first-password-1'),
    ]
    // Another change keeps every session.
    const email = await t.requestAs(await portalToken(laptop), 'PUT', '/api/v1/users/portal-user', {
      email: 'portal@example.com',
    })
    expect(email.status).toBe(200)
    expect([await tokenStatus(laptop), await tokenStatus(phone), await tokenStatus(tablet)]).toEqual([200, 200, 200])

    const changed = await t.requestAs(await portalToken(laptop), 'PUT', '/api/v1/users/portal-user', {
      password: 'second-password-2',
    })
    expect(changed.status).toBe(200)
    expect([await tokenStatus(laptop), await tokenStatus(phone), await tokenStatus(tablet)]).toEqual([200, 401, 401])
    expect((await login('portal-user', 'first-password-1')).statusCode).toBe(401)

    const desk = await cookieOf('second-password-2')
    const byAdmin = await t.request('PUT', '/api/v1/users/portal-user', { password: 'third-password-3' })
    expect(byAdmin.status).toBe(200)
    expect([await tokenStatus(laptop), await tokenStatus(desk)]).toEqual([401, 401])
    await cookieOf('third-password-3')
  })

  it('refuses a wrong password and throttles repeated failures with 429', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) statuses.push((await login('throttled-user', 'wrong password', '10.9.9.9')).statusCode)
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(statuses.slice(5)).toEqual([429, 429])
  })
})

describe('external issuer', () => {
  it('accepts tokens of an OpenID provider through its discovery and JWKS, with realm and resource roles', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'ES256', use: 'sig' }
    const server = http.createServer((request, response) => {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/acme`
      response.setHeader('content-type', 'application/json')
      if (request.url === '/realms/acme/.well-known/openid-configuration') {
        response.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/certs` }))
      } else if (request.url === '/realms/acme/certs') {
        response.end(JSON.stringify({ keys: [jwk] }))
      } else {
        response.statusCode = 404
        response.end('{}')
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/acme`
    const external = await buildApp(
      testAppDeps(t.db.current, t.jobs, { AUTH_ISSUER_URL: issuer, AUTH_AUDIENCE: 'obol-api' }),
    )
    try {
      const sign = (claims: Record<string, unknown>, audience = 'obol-api', key = privateKey) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'ES256', kid: 'ext-1' })
          .setIssuer(issuer)
          .setAudience(audience)
          .setSubject('kc-user')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key)
      const call = (token: string, url: string) =>
        external.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
      const realmRoles = await sign({ realm_access: { roles: ['accounts.customers.view'] }, preferred_username: 'kc' })
      expect((await call(realmRoles, '/api/v1/sellers')).statusCode).toBe(200)
      expect((await call(realmRoles, '/api/v1/languages')).statusCode).toBe(403)
      const resourceRoles = await sign({ resource_access: { obol: { roles: ['api.settings.view'] } } })
      expect((await call(resourceRoles, '/api/v1/languages')).statusCode).toBe(200)
      expect(
        (
          await call(
            await sign({ realm_access: { roles: ['accounts.customers.view'] } }, 'another-api'),
            '/api/v1/sellers',
          )
        ).statusCode,
      ).toBe(401)
      const other = await generateKeyPair('ES256')
      expect(
        (
          await call(
            await sign({ realm_access: { roles: ['accounts.customers.view'] } }, 'obol-api', other.privateKey),
            '/api/v1/sellers',
          )
        ).statusCode,
      ).toBe(401)
      // Obol's own tokens are not trusted when an external issuer is configured.
      expect((await call(t.adminToken, '/api/v1/sellers')).statusCode).toBe(401)
    } finally {
      await external.server.close()
      server.close()
    }
  })
})
