import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../../src/app.ts'
import { testAppDeps, useTestApp } from '../support/test-app.ts'

/**
 * Failed authentications are throttled per (identity, address) pair and per address at a much higher threshold, never
 * per identity alone: twelve wrong secrets for one client from one address must not lock anybody else out
 * (penetration test: after ten failures every client and user of that address got 429, `obol-admin` included).
 */
const t = useTestApp({ env: { AUTH_MAX_FAILURES: '10', AUTH_MAX_ADDRESS_FAILURES: '30' } })

const TOKEN_URL = '/auth/realms/obol/protocol/openid-connect/token'
const secrets: Record<string, string> = {}
let proxied: App
let direct: App

beforeAll(async () => {
  for (const clientId of ['client-a', 'client-b', 'client-c']) {
    const created = await t.request('POST', '/api/v1/clients', { clientId, groups: [] })
    expect(created.status).toBe(201)
    secrets[clientId] = created.body.clientSecret as string
  }
  for (const username of ['user-a', 'user-b']) {
    const created = await t.request('POST', '/api/v1/users', {
      username,
      password: `${username}-password-1`,
      groups: [],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
  }
  const env = { AUTH_MAX_FAILURES: '10', AUTH_MAX_ADDRESS_FAILURES: '30' }
  proxied = await buildApp(testAppDeps(t.db.current, t.jobs, { ...env, TRUST_PROXY: '10.80.0.0/16' }))
  direct = await buildApp(testAppDeps(t.db.current, t.jobs, { ...env, TRUST_PROXY: '' }))
})
afterAll(async () => {
  await proxied.server.close()
  await direct.server.close()
})

async function token(
  clientId: string,
  secret: string,
  from: { address: string; forwardedFor?: string; app?: App },
): Promise<{ status: number; body: any; retryAfter: unknown }> {
  const response = await (from.app ?? t.app).server.inject({
    method: 'POST',
    url: TOKEN_URL,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}),
    },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
    remoteAddress: from.address,
  })
  return { status: response.statusCode, body: response.json(), retryAfter: response.headers['retry-after'] }
}

async function login(username: string, password: string, address: string) {
  const response = await t.app.server.inject({
    method: 'POST',
    url: '/api/portal/login',
    payload: { username, password },
    remoteAddress: address,
  })
  return { status: response.statusCode, body: response.json(), retryAfter: response.headers['retry-after'] }
}

describe('token endpoint', () => {
  it("refuses client A's right secret after twelve failures from its address, and lets client B in from there", async () => {
    const from = { address: '10.1.0.1' }
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await token('client-a', 'wrong', from)).status)
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429])
    const a = await token('client-a', secrets['client-a']!, from)
    expect(a.status).toBe(429)
    expect(a.body).toEqual({ error: 'too_many_requests', error_description: expect.stringContaining('this client') })
    expect(Number(a.retryAfter)).toBeGreaterThan(0)
    expect((await token('client-b', secrets['client-b']!, from)).status).toBe(200)
    // The same client from another address is not being guessed there.
    expect((await token('client-a', secrets['client-a']!, { address: '10.1.0.2' })).status).toBe(200)
  })

  it('forgets the failures of a client that then authenticates', async () => {
    const from = { address: '10.1.1.1' }
    for (let i = 0; i < 9; i++) expect((await token('client-c', 'wrong', from)).status).toBe(401)
    expect((await token('client-c', secrets['client-c']!, from)).status).toBe(200)
    for (let i = 0; i < 9; i++) expect((await token('client-c', 'wrong', from)).status).toBe(401)
    expect((await token('client-c', secrets['client-c']!, from)).status).toBe(200)
  })

  it('refuses everyone at an address past the much higher threshold of the address', async () => {
    const from = { address: '10.2.0.1' }
    for (let i = 0; i < 30; i++) expect((await token(`made-up-${i}`, 'wrong', from)).status).toBe(401)
    const b = await token('client-b', secrets['client-b']!, from)
    expect(b.status).toBe(429)
    expect(b.body.error_description).toMatch(/^Too many failed authentications from this address/)
    expect((await token('client-b', secrets['client-b']!, { address: '10.2.0.2' })).status).toBe(200)
  })
})

describe('portal login', () => {
  it("refuses user A's right password after twelve failures from its address, and lets user B in from there", async () => {
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) statuses.push((await login('user-a', 'wrong password', '10.3.0.1')).status)
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429])
    const a = await login('user-a', 'user-a-password-1', '10.3.0.1')
    expect(a.status).toBe(429)
    expect(a.body).toMatchObject({ status: 'FAIL', errorCode: 'TOO_MANY_REQUESTS' })
    expect(Number(a.retryAfter)).toBeGreaterThan(0)
    expect((await login('user-b', 'user-b-password-1', '10.3.0.1')).status).toBe(200)
    expect((await login('user-a', 'user-a-password-1', '10.3.0.2')).status).toBe(200)
  })
})

describe('X-Forwarded-For', () => {
  it('is ignored without TRUST_PROXY: a guesser cannot spread its failures over made-up addresses', async () => {
    const from = (i: number) => ({ app: direct, address: '10.4.0.1', forwardedFor: `203.0.113.${i}` })
    for (let i = 0; i < 10; i++) expect((await token('client-b', 'wrong', from(i))).status).toBe(401)
    expect((await token('client-b', secrets['client-b']!, from(99))).status).toBe(429)
  })

  it("is honoured from a trusted proxy: one client's failures behind it lock out neither other clients' addresses nor the proxy", async () => {
    const behind = (client: string) => ({ app: proxied, address: '10.80.1.1', forwardedFor: client })
    for (let i = 0; i < 10; i++) expect((await token('client-a', 'wrong', behind('198.51.100.7'))).status).toBe(401)
    expect((await token('client-a', secrets['client-a']!, behind('198.51.100.7'))).status).toBe(429)
    expect((await token('client-a', secrets['client-a']!, behind('198.51.100.8'))).status).toBe(200)
    // A sender outside TRUST_PROXY cannot claim an address: its own counts.
    const spoofing = { app: proxied, address: '10.90.0.1', forwardedFor: '198.51.100.9' }
    for (let i = 0; i < 10; i++) expect((await token('client-c', 'wrong', spoofing)).status).toBe(401)
    expect((await token('client-c', secrets['client-c']!, { ...spoofing, forwardedFor: '198.51.100.10' })).status).toBe(
      429,
    )
  })
})
