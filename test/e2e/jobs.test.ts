import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import { useTestApp } from '../support/test-app.ts'
import { one } from '../../src/kernel/db/database.ts'
import { readTenantSettings } from '../../src/kernel/settings.ts'
import { JobRuntime, type ExecutionView, type JobType } from '../../src/kernel/jobs/job-runtime.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import pino from 'pino'

/** Execution ids each test job type was called with, in call order. */
const calls = new Map<string, number[]>()

function testJob(code: string, run: () => Promise<{ processed?: number; failed?: number }>): JobType {
  return {
    name: `${code}Job`,
    description: `test job ${code}`,
    defaultInstance: { code, description: `test instance ${code}` },
    async run(context) {
      calls.set(code, [...(calls.get(code) ?? []), context.executionId])
      return run()
    },
  }
}

const t = useTestApp({
  jobTypes: [
    testJob('Counting', async () => ({ processed: 3, failed: 1 })),
    testJob('Failing', async () => {
      throw new Error('ledger out of balance by 0.01 EUR')
    }),
    testJob('Retimed', async () => ({})),
    testJob('Ticking', async () => ({ processed: 1 })),
    testJob('CatchingUp', async () => ({ processed: 1 })),
    testJob('Recovered', async () => ({ processed: 2 })),
  ],
})

const ISO_MILLIS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const EVERY_SECOND = { second: '*', minute: '*', hour: '*' }

async function getJob(code: string): Promise<Record<string, any>> {
  const response = await t.request('GET', `/api/v1/jobs/${code}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body as Record<string, any>
}

async function executionsOf(code: string): Promise<ExecutionView[]> {
  const response = await t.request('GET', `/api/v1/jobs/${code}/executions?limit=1000`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  // Page and total come from one snapshot, even while timers and workers add executions.
  expect(response.body.total).toBe(response.body.data.length)
  return response.body.data as ExecutionView[]
}

/** Polls until `done` holds (the job runtime works in the background), failing with `what` after 15 s. */
async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}; last value: ${JSON.stringify(value)}`)
    // A poll, not a wait on time: the runtime's workers run in the background on their own timers.
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const finished = (e: ExecutionView) => e.status === 'SUCCESS' || e.status === 'FAILED'

/** The wall-clock time of `iso` in `timeZone`, as HH:MM:SS. */
function wallClock(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso))
}

describe('job instances', () => {
  it('lists the default JobExecutionPurge instance with its timer and next fire time', async () => {
    const response = await t.request('GET', '/api/v1/jobs')
    expect(response.status).toBe(200)
    const purge = response.body.data.find((j: { code: string }) => j.code === 'JobExecutionPurge')
    expect(purge).toMatchObject({
      jobType: 'JobExecutionPurgeJob',
      active: true,
      timer: { second: '0', minute: '0', hour: '3' },
      parameters: { retentionDays: 90 },
      lastFireAt: null,
    })
    expect(purge.nextFireAt).toMatch(ISO_MILLIS)
    const { timeZone } = await readTenantSettings(t.db.current.db)
    expect(wallClock(purge.nextFireAt, timeZone)).toBe('03:00:00')
    const inMs = Date.parse(purge.nextFireAt) - Date.now()
    expect(inMs).toBeGreaterThan(0)
    expect(inMs).toBeLessThanOrEqual(25 * 3600_000)
    expect(response.body.jobTypes.map((j: { name: string }) => j.name)).toContain('JobExecutionPurgeJob')
  })

  it('answers 404 JSON for an unknown job code on every job route', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/v1/jobs/NoSuchJob', undefined],
      ['PUT', '/api/v1/jobs/NoSuchJob', { active: false }],
      ['POST', '/api/v1/jobs/NoSuchJob/run', undefined],
      ['GET', '/api/v1/jobs/NoSuchJob/executions', undefined],
    ] as const) {
      const response = await t.request(method, url, body)
      expect(response.status, `${method} ${url}`).toBe(404)
      expect(response.headers['content-type']).toMatch(/^application\/json/)
      expect(response.body).toMatchObject({
        status: 'FAIL',
        errorCode: 'ENTITY_NOT_FOUND',
        message: 'Job NoSuchJob not found',
      })
    }
  })
})

describe('running a job on request', () => {
  it('answers 202 with a QUEUED execution that then reaches SUCCESS with its counts, start and end', async () => {
    const before = Date.now()
    const response = await t.request('POST', '/api/v1/jobs/Counting/run')
    expect(response.status, JSON.stringify(response.body)).toBe(202)
    expect(response.body).toMatchObject({
      jobCode: 'Counting',
      status: 'QUEUED',
      trigger: 'MANUAL',
      fireTime: null,
      startedAt: null,
      endedAt: null,
      error: null,
    })
    const id: number = response.body.id
    expect(id).toEqual(expect.any(Number))

    const [done] = await waitFor(
      'the execution to finish',
      () => executionsOf('Counting'),
      (list) => list.length === 1 && finished(list[0]!),
    )
    expect(done).toMatchObject({
      id,
      status: 'SUCCESS',
      trigger: 'MANUAL',
      processedCount: 3,
      failedCount: 1,
      error: null,
    })
    expect(done!.instance).toBe(t.jobs.instanceId)
    for (const at of [done!.queuedAt, done!.startedAt, done!.endedAt]) expect(at).toMatch(ISO_MILLIS)
    const [queued, started, ended] = [done!.queuedAt, done!.startedAt!, done!.endedAt!].map((at) => Date.parse(at))
    expect(queued).toBeGreaterThanOrEqual(before - 1000)
    expect(started).toBeGreaterThanOrEqual(queued!)
    expect(ended).toBeGreaterThanOrEqual(started!)
    expect(calls.get('Counting')).toEqual([id])
  })

  it('ends FAILED with the error message of a job that throws', async () => {
    const response = await t.request('POST', '/api/v1/jobs/Failing/run')
    expect(response.status).toBe(202)
    const [done] = await waitFor(
      'the failing execution to finish',
      () => executionsOf('Failing'),
      (list) => list.length === 1 && finished(list[0]!),
    )
    expect(done).toMatchObject({ id: response.body.id, status: 'FAILED', error: 'ledger out of balance by 0.01 EUR' })
    expect(done!.endedAt).toMatch(ISO_MILLIS)
    expect(calls.get('Failing')).toEqual([response.body.id])
  })
})

describe('lost work', () => {
  it('runs, once, an execution queued by an instance that stopped at once: its message committed with it', async () => {
    // An API-only instance queues a run and goes away: the execution and its message were one transaction, so the
    // worker runs it without any sweep for lost messages.
    const api = new JobRuntime({
      database: t.db.current,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      heartbeatIntervalMs: 200,
      instanceStaleAfterMs: 2000,
      timerPollIntervalMs: 100,
      worker: false,
      roles: 'api',
    })
    api.register({ name: 'RecoveredJob', description: 'test job Recovered', run: async () => ({}) })
    await api.start()
    const queued = await api.runNow('Recovered', 'test')
    await api.stop(0)
    const [done] = await waitFor(
      'the execution to run',
      () => executionsOf('Recovered'),
      (list) => list.length === 1 && finished(list[0]!),
    )
    expect(done).toMatchObject({ id: queued.id, status: 'SUCCESS', processedCount: 2 })
    expect(calls.get('Recovered')).toEqual([queued.id])
  })

  it('queues nothing when the transaction writing the execution rolls back', async () => {
    const before = await one<{ n: string }>(t.db.current.db, sql`select count(*)::text as n from pgboss.job`)
    await expect(
      t.db.current.db.transaction(async (tx) => {
        // A bill run's message (its queue is the invoicing module's), for a run that does not exist.
        await t.jobs.send(tx, 'obol-bill-run', { billRunId: 0 })
        throw new Error('rolled back')
      }),
    ).rejects.toThrow('rolled back')
    const after = await one<{ n: string }>(t.db.current.db, sql`select count(*)::text as n from pgboss.job`)
    expect(after!.n).toBe(before!.n)
  })
})

describe('changing a job', () => {
  it.each([
    [{ second: '0', minute: '0', hour: '25' }, 'timer.hour'],
    [{ minute: '61' }, 'timer.minute'],
    [{ dayOfMonth: '2nd Funday' }, 'timer.dayOfMonth'],
    [{ month: '13' }, 'timer.month'],
    [{ dayOfWeek: 'Mon-Xyz' }, 'timer.dayOfWeek'],
    [{ year: '99' }, 'timer.year'],
  ])('rejects the timer %j with INVALID_CRON naming %s and changes nothing', async (timer, field) => {
    const before = await getJob('Retimed')
    const response = await t.request('PUT', '/api/v1/jobs/Retimed', { timer, active: false, description: 'changed' })
    expect(response.status, JSON.stringify(response.body)).toBe(400)
    expect(response.body).toMatchObject({ status: 'FAIL', errorCode: 'INVALID_CRON' })
    expect(response.body.details[0].field).toBe(field)
    expect(response.body.details[0].message).toEqual(expect.any(String))
    expect(await getJob('Retimed')).toEqual(before)
  })

  it('recomputes nextFireAt from a new valid timer', async () => {
    const { timeZone } = await readTenantSettings(t.db.current.db)
    const response = await t.request('PUT', '/api/v1/jobs/Retimed', {
      timer: { second: '15', minute: '*/10', hour: '*' },
    })
    expect(response.status, JSON.stringify(response.body)).toBe(200)
    expect(response.body.timer).toEqual({ second: '15', minute: '*/10', hour: '*' })
    const next: string = response.body.nextFireAt
    expect(next).toMatch(ISO_MILLIS)
    expect(wallClock(next, timeZone)).toMatch(/^\d\d:\d0:15$/)
    const inMs = Date.parse(next) - Date.now()
    expect(inMs).toBeGreaterThan(0)
    expect(inMs).toBeLessThanOrEqual(10 * 60_000)
    expect(await getJob('Retimed')).toEqual(response.body)

    const cleared = await t.request('PUT', '/api/v1/jobs/Retimed', { timer: null })
    expect(cleared.status).toBe(200)
    expect(cleared.body).toMatchObject({ timer: null, nextFireAt: null })
  })
})

describe('timers', () => {
  it('recomputes nextFireAt in the new zone when the tenant time zone changes', async () => {
    await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })
    const set = await t.request('PUT', '/api/v1/jobs/Retimed', {
      active: true,
      timer: { second: '0', minute: '0', hour: '3' },
    })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    expect(wallClock(set.body.nextFireAt, 'UTC')).toBe('03:00:00')
    try {
      const moved = await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Asia/Kolkata' })
      expect(moved.status).toBe(200)
      const next: string = (await getJob('Retimed')).nextFireAt
      expect(wallClock(next, 'Asia/Kolkata')).toBe('03:00:00')
      expect(next).not.toBe(set.body.nextFireAt)
    } finally {
      await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'UTC' })
    }
    expect(wallClock((await getJob('Retimed')).nextFireAt, 'UTC')).toBe('03:00:00')
    await t.request('PUT', '/api/v1/jobs/Retimed', { timer: null })
  })

  it('fires a timer every second, once per fire time, and stops when the job is made inactive', async () => {
    const set = await t.request('PUT', '/api/v1/jobs/Ticking', { timer: EVERY_SECOND })
    expect(set.status, JSON.stringify(set.body)).toBe(200)
    const fired = await waitFor(
      'three timer executions to finish',
      () => executionsOf('Ticking'),
      (list) => list.filter(finished).length >= 3,
    )
    for (const e of fired) {
      expect(e.trigger).toBe('TIMER')
      expect(e.fireTime).toMatch(ISO_MILLIS)
    }
    const fireTimes = fired.map((e) => e.fireTime)
    expect(new Set(fireTimes).size).toBe(fired.length)
    expect(fired.filter(finished).every((e) => e.status === 'SUCCESS')).toBe(true)
    expect((await getJob('Ticking')).lastFireAt).toMatch(ISO_MILLIS)

    const stopped = await t.request('PUT', '/api/v1/jobs/Ticking', { active: false })
    expect(stopped.status).toBe(200)
    expect(stopped.body.active).toBe(false)
    const countAtStop = (await executionsOf('Ticking')).length
    // Due-ness is read from the database clock (`next_fire_at <= now()`), so instead of waiting for fire times to
    // pass, the next one is moved an hour into the past: an inactive job stays unfired however overdue it is.
    await t.db.current.db.execute(
      sql`update job_instance set next_fire_at = now() - interval '1 hour' where code = 'Ticking'`,
    )
    expect(await t.jobs.fireDueTimers()).toBe(0)
    const after = await executionsOf('Ticking')
    expect(after.length).toBe(countAtStop)
    // Every execution the runtime was asked for ran exactly once.
    const ran = calls.get('Ticking') ?? []
    expect(new Set(ran).size).toBe(ran.length)
  })

  it('fires a timer whose due time passed while nothing ran once, not once per missed time', async () => {
    // As if the process had been down for an hour: the timer (every minute) was due 60 times before `missedUntil`.
    const missed = await one<{ due: string; missedUntil: string }>(
      t.db.current.db,
      sql`update job_instance set timer = ${JSON.stringify({ second: '0', minute: '*', hour: '*' })}::jsonb,
        next_fire_at = date_trunc('minute', now()) - interval '1 hour' where code = 'CatchingUp'
        returning to_char(next_fire_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as due,
          to_char(date_trunc('minute', now()) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "missedUntil"`,
    )
    const { due, missedUntil } = missed!
    const all = await waitFor(
      'the missed timer to fire',
      () => executionsOf('CatchingUp'),
      (list) => list.some((e) => e.fireTime === due && finished(e)),
    )
    // Later executions are the timer's regular firings after the catch-up (a minute boundary may pass).
    const catchUps = all.filter((e) => Date.parse(e.fireTime!) < Date.parse(missedUntil))
    expect(catchUps).toHaveLength(1)
    expect(catchUps[0]).toMatchObject({ trigger: 'TIMER', fireTime: due, status: 'SUCCESS' })
    const job = await getJob('CatchingUp')
    expect(Date.parse(job.lastFireAt)).toBeGreaterThanOrEqual(Date.parse(due))
    expect(Date.parse(job.nextFireAt)).toBeGreaterThan(Date.parse(missedUntil))
    expect(Date.parse(job.nextFireAt) - Date.now()).toBeLessThanOrEqual(60_000)
  })
})
