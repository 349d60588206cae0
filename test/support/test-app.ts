import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import pino from 'pino'
import { buildApp, type App, type AppDeps } from '../../src/app.ts'
import { systemClock, type Clock } from '../../src/kernel/clock.ts'
import { loadConfig } from '../../src/kernel/config.ts'
import { openPostgres, type Database } from '../../src/kernel/db/database.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { RESERVATION_EXPIRY_TASK } from '../../src/modules/prepaid/index.ts'
import { SCHEDULE_POLL_TASK } from '../../src/modules/billing-runs/index.ts'
import { executionPurgeJob } from '../../src/kernel/jobs/execution-purge.job.ts'
import { recurringRatingJob, walletOperationPartitionJob } from '../../src/modules/ordering/index.ts'
import type { JobType } from '../../src/kernel/jobs/job-runtime.ts'
import { useTestDatabase } from './test-database.ts'
import { installResponseContract } from './response-contract.ts'

export const TEST_ADMIN = {
  clientId: 'test-admin',
  clientSecret: 'test-admin-secret-0123456789',
  username: 'admin',
  password: 'admin-password-0123',
}
export const TEST_BASE_URL = 'http://obol.test'

/** The dependencies of a test app: the real auth configuration with known admin credentials. */
export function testAppDeps(
  database: Database,
  jobs: JobRuntime,
  env: NodeJS.ProcessEnv = {},
  clock: Clock = systemClock,
): AppDeps {
  const config = loadConfig({
    OBOL_ADMIN_CLIENT_ID: TEST_ADMIN.clientId,
    OBOL_ADMIN_CLIENT_SECRET: TEST_ADMIN.clientSecret,
    OBOL_ADMIN_USERNAME: TEST_ADMIN.username,
    OBOL_ADMIN_PASSWORD: TEST_ADMIN.password,
    AUTH_MAX_FAILURES: '5',
    AUTH_FAILURE_WINDOW_SEC: '60',
    ...env,
  })
  return {
    database,
    clock,
    jobs,
    publicUrl: TEST_BASE_URL,
    auth: config.auth,
    // OBOL_TEST_LOG=debug shows the app's log while debugging a test (silent otherwise).
    ...(process.env.OBOL_TEST_LOG ? { logLevel: process.env.OBOL_TEST_LOG } : {}),
    // Each test app exports into a directory of its own unless told otherwise.
    exportDir: env.EXPORT_DIR ? config.exportDir : fs.mkdtempSync(path.join(os.tmpdir(), 'obol-exports-')),
    trustProxy: config.trustProxy,
    webhookPrivateTargets: config.webhookPrivateTargets,
  }
}

/**
 * Another application instance on `database` (the same database as a test app's, through its own pool on a server):
 * an API-only job runtime that is not started, as a second replica of the service behind a load balancer; on `clock`
 * when given (the test app's, so both instances see one time).
 */
export async function apiInstance(database: Database, clock: Clock = systemClock): Promise<App> {
  const jobs = new JobRuntime({
    database,
    clock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 200,
    instanceStaleAfterMs: 2000,
    timerPollIntervalMs: 100,
    worker: false,
    roles: 'api',
  })
  return buildApp(testAppDeps(database, jobs, {}, clock))
}

/** A second application instance on a PostgreSQL test database, with a pool of its own; `close` ends both. */
export interface SecondInstance {
  readonly app: App
  close(): Promise<void>
}

export async function secondInstance(url: string, clock: Clock): Promise<SecondInstance> {
  const database = openPostgres(url, { max: 8 })
  const app = await apiInstance(database, clock)
  return {
    app,
    close: async () => {
      await app.server.close()
      await database.close()
    },
  }
}

export interface Response {
  status: number
  body: any
  headers: Record<string, unknown>
}

export interface TestApp {
  readonly app: App
  readonly jobs: JobRuntime
  readonly db: ReturnType<typeof useTestDatabase>
  /** A token of the bootstrap admin (Platform Admin and the query roles). */
  readonly adminToken: string
  /** The root of the app's Expert exports: run records name their files relative to it. */
  readonly exportDir: string
  /** Calls the API as the bootstrap admin. */
  request(method: string, url: string, body?: unknown): Promise<Response>
  /** Calls the API with the given bearer token, or none when `token` is undefined. */
  requestAs(token: string | undefined, method: string, url: string, body?: unknown): Promise<Response>
  /** Gets a token from the token endpoint for a new client in a new group holding exactly `roles`. */
  tokenWithRoles(roles: string[], options?: { sellerCodes?: string[] }): Promise<string>
}

let clientCounter = 0

/**
 * An app on its own database for one test file, with the job runtime started (fast timers). Every response is
 * checked against the OpenAPI document (status declared, body matching its schema, no field dropped): the file fails
 * at its end when one was not.
 */
export function useTestApp(options: { jobTypes?: JobType[]; env?: NodeJS.ProcessEnv; clock?: Clock } = {}): TestApp {
  const db = useTestDatabase()
  const violations: string[] = []
  let app: App | undefined
  let jobs: JobRuntime | undefined
  let adminToken = ''
  /** The export directory made for this app, removed with it. */
  let exportDir: string | undefined
  let appExportDir = ''

  async function requestAs(token: string | undefined, method: string, url: string, body?: unknown): Promise<Response> {
    const response = await app!.server.inject({
      method: method as 'GET',
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(body === undefined ? {} : { payload: body as object }),
    })
    const text = response.body
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = text
    }
    return { status: response.statusCode, body: parsed, headers: response.headers }
  }

  async function clientToken(clientId: string, clientSecret: string): Promise<string> {
    const response = await app!.server.inject({
      method: 'POST',
      url: `/auth/realms/${options.env?.AUTH_REALM ?? 'obol'}/protocol/openid-connect/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    })
    if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`)
    return response.json<{ access_token: string }>().access_token
  }

  beforeAll(async () => {
    jobs = new JobRuntime({
      database: db.current,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      heartbeatIntervalMs: 200,
      instanceStaleAfterMs: 2000,
      timerPollIntervalMs: 100,
      worker: true,
      roles: 'all',
      // Driven by the tests on their injected clocks (`app.reservationExpiry.tick()`, `app.billingRunTimer.start()`).
      held: [RESERVATION_EXPIRY_TASK, SCHEDULE_POLL_TASK],
    })
    jobs.register(executionPurgeJob)
    jobs.register(walletOperationPartitionJob)
    jobs.register(recurringRatingJob)
    for (const type of options.jobTypes ?? []) jobs.register(type)
    await jobs.start()
    const deps = testAppDeps(db.current, jobs, options.env, options.clock)
    if (!options.env?.EXPORT_DIR) exportDir = deps.exportDir
    appExportDir = deps.exportDir ?? ''
    app = await buildApp({ ...deps, extraRoutes: (server) => installResponseContract(server, violations) })
    adminToken = await clientToken(TEST_ADMIN.clientId, TEST_ADMIN.clientSecret)
  })
  afterAll(async () => {
    await app?.server.close()
    await jobs?.stop(1000)
    if (exportDir) fs.rmSync(exportDir, { recursive: true, force: true })
    expect([...new Set(violations)], 'responses that break the OpenAPI document').toEqual([])
  })
  return {
    get app() {
      return app!
    },
    get jobs() {
      return jobs!
    },
    get adminToken() {
      return adminToken
    },
    get exportDir() {
      return appExportDir
    },
    db,
    request: (method, url, body) => requestAs(adminToken, method, url, body),
    requestAs,
    async tokenWithRoles(roles, tokenOptions = {}) {
      const name = `test-group-${++clientCounter}-${Date.now()}`
      // A group grants at least one role: a token with none comes from a client in no group.
      if (roles.length > 0) {
        const group = await requestAs(adminToken, 'POST', '/api/v1/groups', {
          name,
          roles,
          sellerCodes: tokenOptions.sellerCodes ?? null,
        })
        if (group.status !== 201) throw new Error(`group creation failed: ${JSON.stringify(group.body)}`)
      }
      const client = await requestAs(adminToken, 'POST', '/api/v1/clients', {
        clientId: `${name}-client`,
        groups: roles.length > 0 ? [name] : [],
      })
      if (client.status !== 201) throw new Error(`client creation failed: ${JSON.stringify(client.body)}`)
      return clientToken(client.body.clientId, client.body.clientSecret)
    },
  }
}
