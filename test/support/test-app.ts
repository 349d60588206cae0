import { afterAll, beforeAll } from 'vitest'
import pino from 'pino'
import { buildApp, type App } from '../../src/app.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { executionPurgeJob } from '../../src/kernel/jobs/execution-purge.job.ts'
import type { JobType } from '../../src/kernel/jobs/job-runtime.ts'
import { useTestDatabase } from './test-database.ts'

export interface TestApp {
  readonly app: App
  readonly jobs: JobRuntime
  readonly db: ReturnType<typeof useTestDatabase>
  request(
    method: string,
    url: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>
}

/** An app on its own database for one test file, with the job runtime started (fast timers). */
export function useTestApp(options: { jobTypes?: JobType[] } = {}): TestApp {
  const db = useTestDatabase()
  let app: App | undefined
  let jobs: JobRuntime | undefined
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
    })
    jobs.register(executionPurgeJob)
    for (const type of options.jobTypes ?? []) jobs.register(type)
    await jobs.start()
    app = await buildApp({ database: db.current, clock: systemClock, jobs })
  })
  afterAll(async () => {
    await app?.server.close()
    await jobs?.stop(1000)
  })
  return {
    get app() {
      return app!
    },
    get jobs() {
      return jobs!
    },
    db,
    async request(method, url, body) {
      const response = await app!.server.inject({
        method: method as 'GET',
        url,
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
    },
  }
}
