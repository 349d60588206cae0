import net from 'node:net'
import pg from 'pg'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp, type App } from '../../src/app.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { openPglite, openPostgres, type Database } from '../../src/kernel/db/database.ts'
import { isDatabaseUnavailable, translateDatabaseError } from '../../src/kernel/db/database-errors.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { TEST_ADMIN, testAppDeps } from '../support/test-app.ts'
import { createTestDatabase, onPostgres } from '../support/test-database.ts'

/**
 * A database outage (stopped server, admin shutdown, failover, network cut, closed embedded database) is 503
 * DATABASE_UNAVAILABLE with Retry-After in every route family's shape, never a 500: a client can tell a transient
 * outage from a bug. The outages are real ones, made inside the test (the shared PostgreSQL server keeps running).
 */

/** An app on `database`, with a job runtime that is never started (the outage is the HTTP side's). */
async function appOn(database: Database): Promise<App> {
  const jobs = new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 60_000,
    instanceStaleAfterMs: 120_000,
    timerPollIntervalMs: 60_000,
    worker: false,
    roles: 'api',
  })
  return buildApp(testAppDeps(database, jobs))
}

async function adminToken(app: App): Promise<string> {
  const response = await app.server.inject({
    method: 'POST',
    url: '/auth/realms/obol/protocol/openid-connect/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: TEST_ADMIN.clientId,
      client_secret: TEST_ADMIN.clientSecret,
    }).toString(),
  })
  expect(response.statusCode).toBe(200)
  return response.json<{ access_token: string }>().access_token
}

/** Every route family answers 503 with Retry-After and a message saying the database is unavailable. */
async function expectUnavailableEverywhere(app: App, token: string): Promise<void> {
  const call = (method: 'GET' | 'POST', url: string, payload?: string, headers: Record<string, string> = {}) =>
    app.server.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...headers }, payload })
  const unavailable = expect.stringContaining('database is unavailable')
  const cases: [string, Awaited<ReturnType<typeof call>>, unknown][] = [
    [
      'v1 resource',
      await call('GET', '/api/v1/customers'),
      { status: 'FAIL', errorCode: 'DATABASE_UNAVAILABLE', message: unavailable },
    ],
    [
      'Query API',
      await call('GET', '/api/v1/query/customer'),
      { status: 'FAIL', errorCode: 'DATABASE_UNAVAILABLE', code: 'DATABASE_UNAVAILABLE', message: unavailable },
    ],
    [
      'report queries',
      await call('GET', '/api/v1/reportQueries/ANY'),
      { status: 'FAIL', error_code: 'database-unavailable', message: unavailable },
    ],
    [
      'token endpoint',
      await call(
        'POST',
        '/auth/realms/obol/protocol/openid-connect/token',
        'grant_type=client_credentials&client_id=x&client_secret=y',
        { 'content-type': 'application/x-www-form-urlencoded' },
      ),
      { error: 'temporarily_unavailable', error_description: unavailable },
    ],
  ]
  for (const [family, response, body] of cases) {
    expect([family, response.statusCode]).toEqual([family, 503])
    expect(response.headers['retry-after']).toBe('5')
    expect(response.json()).toEqual(body)
  }
  expect((await app.server.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(503)
}

describe('the errors a lost database gives', () => {
  it('are recognised for a refused connection and a closed pool', async () => {
    const port = await closedPort()
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'nobody', database: 'none' })
    const refused = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isDatabaseUnavailable(refused)).toBe(true)

    const pool = openPostgres(`postgres://nobody@127.0.0.1:${port}/none`)
    await pool.close()
    const ended = await pool.db.execute(sql`select 1`).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(translateDatabaseError(ended)?.code).toBe('DATABASE_UNAVAILABLE')
  })

  it('are not confused with errors a request causes', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false)
    expect(isDatabaseUnavailable(new Error('something else'))).toBe(false)
  })

  it.skipIf(!onPostgres)('are recognised for a backend ended by pg_terminate_backend (PostgreSQL only)', async () => {
    const url = process.env.TEST_DATABASE_URL!
    const victim = new pg.Client({ connectionString: url })
    victim.on('error', () => undefined)
    await victim.connect()
    const { rows } = await victim.query<{ pid: number }>('select pg_backend_pid() as pid')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid])
    await admin.end()
    const error = await victim.query('select 1').then(
      () => undefined,
      (e: unknown) => e,
    )
    await victim.end().catch(() => undefined)
    expect(error).toBeDefined()
    expect(translateDatabaseError(error)?.code).toBe('DATABASE_UNAVAILABLE')
  })
})

describe('an embedded database that closes under the server', () => {
  let app: App
  /** A second instance on the same database that has not yet seen the token (as after a restart). */
  let fresh: App
  let database: Database

  beforeAll(async () => {
    database = await openPglite()
    const { migrate } = await import('../../src/kernel/db/migrate.ts')
    await migrate(database.db)
    app = await appOn(database)
    fresh = await appOn(database)
  })
  afterAll(async () => {
    await app.server.close()
    await fresh.server.close()
  })

  it('answers 503 DATABASE_UNAVAILABLE with Retry-After in every route family', async () => {
    const token = await adminToken(app)
    expect(
      (
        await app.server.inject({
          method: 'GET',
          url: '/api/v1/customers',
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode,
    ).toBe(200)
    await database.close()
    await expectUnavailableEverywhere(app, token)
    // Checking a token it has not seen reads its signing key from the database: 503 to retry, not 401 (a client
    // would throw away a good token).
    const unseen = await fresh.server.inject({
      method: 'GET',
      url: '/api/v1/customers',
      headers: { authorization: `Bearer ${token}` },
    })
    expect([unseen.statusCode, unseen.json<{ errorCode: string }>().errorCode]).toEqual([503, 'DATABASE_UNAVAILABLE'])
  })
})

async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A TCP relay between the app and the PostgreSQL server: cutting it is a network outage (open connections reset,
 * new ones refused) for this app alone, and restoring it brings the same address back.
 */
class Relay {
  private readonly target: { host: string; port: number }
  private readonly sockets = new Set<net.Socket>()
  private server: net.Server | undefined
  port = 0

  constructor(target: { host: string; port: number }) {
    this.target = target
  }

  async open(): Promise<void> {
    const server = net.createServer((socket) => {
      const upstream = net.connect(this.target.port, this.target.host)
      for (const s of [socket, upstream]) {
        this.sockets.add(s)
        s.on('close', () => this.sockets.delete(s))
        s.on('error', () => {
          socket.destroy()
          upstream.destroy()
        })
      }
      socket.pipe(upstream).pipe(socket)
    })
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
    this.port = (server.address() as net.AddressInfo).port
    this.server = server
  }

  async cut(): Promise<void> {
    const server = this.server
    this.server = undefined
    const closed = new Promise((resolve) => server?.close(resolve))
    for (const socket of this.sockets) socket.destroy()
    await closed
  }
}

describe.skipIf(!onPostgres)('a PostgreSQL server that becomes unreachable (PostgreSQL only)', () => {
  let app: App
  let database: Database
  let relay: Relay
  let drop: () => Promise<void>
  let dbUrl: URL

  beforeAll(async () => {
    const created = await createTestDatabase()
    drop = created.drop
    dbUrl = new URL(created.url!)
    relay = new Relay({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) })
    await relay.open()
    const through = new URL(dbUrl)
    through.hostname = '127.0.0.1'
    through.port = String(relay.port)
    database = openPostgres(through.toString(), { max: 3 })
    app = await appOn(database)
  })
  afterAll(async () => {
    await app?.server.close()
    await database?.close()
    await relay?.cut()
    await drop?.()
  })

  it('answers 503 with Retry-After while the server cannot be reached, and serves again once it can', async () => {
    const token = await adminToken(app)
    const customers = () =>
      app.server.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization: `Bearer ${token}` } })
    expect(
      (
        await app.server.inject({
          method: 'GET',
          url: '/api/v1/query/customer',
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode,
    ).toBe(200)
    expect((await customers()).statusCode).toBe(200)
    await relay.cut()
    await expectUnavailableEverywhere(app, token)
    await relay.open()
    expect((await customers()).statusCode).toBe(200)
  })

  it('never answers 500 when an administrator terminates its connections', async () => {
    const token = await adminToken(app)
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    try {
      for (let round = 0; round < 5; round++) {
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
          [dbUrl.pathname.slice(1)],
        )
        const response = await app.server.inject({
          method: 'GET',
          url: '/api/v1/customers',
          headers: { authorization: `Bearer ${token}` },
        })
        expect([200, 503]).toContain(response.statusCode)
        if (response.statusCode === 503) expect(response.headers['retry-after']).toBe('5')
      }
      // Dead connections leave the pool as their loss is noticed; fresh ones then serve.
      const statuses: number[] = []
      for (let i = 0; i < 5 && statuses.at(-1) !== 200; i++) {
        const response = await app.server.inject({
          method: 'GET',
          url: '/api/v1/customers',
          headers: { authorization: `Bearer ${token}` },
        })
        statuses.push(response.statusCode)
      }
      expect(statuses.at(-1)).toBe(200)
    } finally {
      await admin.end()
    }
  })
})
