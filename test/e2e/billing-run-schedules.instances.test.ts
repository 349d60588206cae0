import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { sql } from 'drizzle-orm'
import { buildApp, type App } from '../../src/app.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { openPostgres, rows, type Database } from '../../src/kernel/db/database.ts'
import { JobRuntime } from '../../src/kernel/jobs/job-runtime.ts'
import { testAppDeps, useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'

const t = useTestApp()
const BASE = '/api/v1/billingRunSchedules'
const CYCLES = ['CYC_1', 'CYC_2', 'CYC_3']

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

describe.skipIf(!onPostgres)('billing run schedules on two application instances (needs PostgreSQL)', () => {
  let second: { app: App; database: Database; instanceId: string; jobs: JobRuntime } | undefined

  beforeAll(async () => {
    // A second instance: its own pool, job runtime and app on the same PostgreSQL database.
    const database = openPostgres(t.db.url!, { max: 5 })
    const jobs = new JobRuntime({
      database,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      heartbeatIntervalMs: 200,
      instanceStaleAfterMs: 2000,
      timerPollIntervalMs: 100,
      worker: false,
      roles: 'api',
    })
    // Started as an API-only instance: it sends the bill runs' messages its firings create, a worker runs them.
    await jobs.start()
    second = { app: await buildApp(testAppDeps(database, jobs)), database, instanceId: jobs.instanceId, jobs }
    const setup: [string, Record<string, unknown>][] = [
      ['calendars', { code: 'CAL_M', calendarType: 'PERIOD', periodUnit: 'MONTH', periodLength: 1 }],
      ...CYCLES.map((code): [string, Record<string, unknown>] => ['billingCycles', { code, calendar: 'CAL_M' }]),
    ]
    for (const [path, body] of setup) expect((await t.request('POST', `/api/v1/${path}`, body)).status).toBe(201)
  })

  afterAll(async () => {
    await second?.app.server.close()
    await second?.jobs.stop(1000)
    await second?.database.close()
  })

  async function firings(code: string) {
    return rows<{ fire_time: string; fired_by: string; runs: number; cycles: number }>(
      t.db.current.db,
      sql`select to_char(f.fire_time at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as fire_time, f.fired_by,
          (select count(*)::int from billing_run r where r.firing_id = f.id) as runs,
          (select count(distinct r.billing_cycle_id)::int from billing_run r where r.firing_id = f.id) as cycles
        from billing_run_schedule_firing f join billing_run_schedule s on s.id = f.schedule_id
        where s.code = ${code} and f.trigger = 'TIMER' order by f.fire_time`,
    )
  }

  it('claims a due time once when both instances poll at the same moment', async () => {
    const created = await t.request('POST', BASE, {
      name: 'RACE',
      repeats: 'DAILY',
      cron: { hour: '3' },
      billingCycleCodes: CYCLES,
    })
    expect(created.status).toBe(201)
    for (let round = 0; round < 5; round++) {
      await t.db.current.db.execute(
        sql`update billing_run_schedule set next_fire_date = date_trunc('second', now()) - make_interval(days => ${round + 1}) where code = 'RACE'`,
      )
      const fired = await Promise.all([t.app.billingRunTimer.tick(), second!.app.billingRunTimer.tick()])
      expect(fired[0] + fired[1], `round ${round}`).toBe(1)
    }
    const done = await firings('RACE')
    expect(done).toHaveLength(5)
    for (const firing of done) expect(firing).toMatchObject({ runs: 3, cycles: 3 })
  })

  it('fires a schedule every second for ten seconds: exactly one bill run per cycle per firing', async () => {
    const start = Math.ceil(Date.now() / 1000) * 1000 + 2000
    const end = start + 9000
    const created = await t.request('POST', BASE, {
      name: 'EVERY_SECOND',
      repeats: 'DAILY',
      cron: { second: '*', minute: '*', hour: '*' },
      startDate: isoSeconds(start),
      endDate: isoSeconds(end),
      billingCycleCodes: CYCLES,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    void t.app.billingRunTimer.start()
    void second!.app.billingRunTimer.start()
    try {
      await sleep(end + 1500 - Date.now())
    } finally {
      await Promise.all([t.app.billingRunTimer.stop(), second!.app.billingRunTimer.stop()])
    }

    const fired = await firings('EVERY_SECOND')
    const expected = Array.from({ length: 10 }, (_, i) => isoSeconds(start + i * 1000))
    expect(fired.map((f) => f.fire_time)).toEqual(expected)
    for (const firing of fired) expect(firing, firing.fire_time).toMatchObject({ runs: 3, cycles: 3 })
    for (const firing of fired) expect([t.jobs.instanceId, second!.instanceId]).toContain(firing.fired_by)

    const runs = await rows<{ n: number }>(
      t.db.current.db,
      sql`select count(*)::int as n from billing_run where schedule_code = 'EVERY_SECOND'`,
    )
    expect(runs[0]!.n).toBe(30)
    // Either instance serves the result.
    const read = await second!.app.server.inject({
      method: 'GET',
      url: `${BASE}/EVERY_SECOND`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    })
    const schedule = read.json<{ status: string; createdBillingRuns: number[]; lastFireDate: string }>()
    // Every response writes an instant to the millisecond, as toISOString does (docs/decisions.md, Query API).
    expect(schedule).toMatchObject({
      status: 'COMPLETED',
      lastFireDate: new Date(Math.floor(end / 1000) * 1000).toISOString(),
    })
    expect(schedule.createdBillingRuns).toHaveLength(30)
  })
})
