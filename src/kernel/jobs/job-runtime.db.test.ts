import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { sql } from 'drizzle-orm'
import { onPostgres, useTestDatabase } from '../../../test/support/test-database.ts'
import { one, openPostgres, rows, type Database } from '../db/database.ts'
import { systemClock } from '../clock.ts'
import { JobRuntime, type JobRuntimeOptions, type JobType } from './job-runtime.ts'

const db = useTestDatabase()

function newRuntime(database: Database, options: Partial<JobRuntimeOptions> = {}): JobRuntime {
  return new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 200,
    instanceStaleAfterMs: 2000,
    timerPollIntervalMs: 100,
    worker: false,
    roles: 'all',
    ...options,
  })
}

/** A job type that records every run of every execution, whichever runtime runs it. */
function recordingJob(code: string, runs: number[], ms = 0): JobType {
  return {
    name: `${code}Job`,
    description: `test job ${code}`,
    defaultInstance: { code, description: `test instance ${code}` },
    async run(context) {
      runs.push(context.executionId)
      // Work that takes time, so that two runtimes overlap while one of them holds an execution.
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms))
      return { processed: 1 }
    },
  }
}

async function executionRows(database: Database, code: string) {
  const found = await rows<{
    id: string | number
    status: string
    fire_time: string | null
    error: string | null
    ended_at: string | null
  }>(
    database.db,
    sql`select e.id, e.status, e.fire_time::text, e.error, e.ended_at::text from job_execution e
      join job_instance i on i.id = e.job_instance_id where i.code = ${code} order by e.id`,
  )
  return found.map((r) => ({ ...r, id: Number(r.id) }))
}

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

async function insertRunning(database: Database, jobCode: string, instance: string): Promise<number> {
  const created = await one<{ id: string | number }>(
    database.db,
    sql`insert into job_execution (job_instance_id, status, trigger, started_at, app_instance_id)
      select id, 'RUNNING', 'MANUAL', now() - interval '10 minutes', ${instance} from job_instance where code = ${jobCode}
      returning id`,
  )
  return Number(created!.id)
}

describe('heartbeats and the reaper', () => {
  const reaperRuns: number[] = []
  const workerRuns: number[] = []
  let reaper: JobRuntime
  let worker: JobRuntime

  beforeAll(async () => {
    // Neither runtime reaps or fires on its own (worker: false): the tests call the reaper themselves.
    reaper = newRuntime(db.current)
    reaper.register(recordingJob('Reaped', reaperRuns))
    worker = newRuntime(db.current)
    worker.register(recordingJob('Reaped', workerRuns))
    await reaper.start()
    await worker.start()
  })
  afterAll(async () => {
    await worker?.stop(1000)
    await reaper?.stop(1000)
  })

  it('marks FAILED, naming the instance, a RUNNING execution whose instance stopped heartbeating, and nothing else', async () => {
    await db.current.db.execute(sql`insert into app_instance (id, hostname, pid, roles, started_at, heartbeat_at) values
      ('dead-instance-1', 'host-a', 4242, 'all', now() - interval '2 hours', now() - interval '1 hour'),
      ('live-instance-2', 'host-b', 4343, 'all', now(), now())`)
    const dead = await insertRunning(db.current, 'Reaped', 'dead-instance-1')
    const live = await insertRunning(db.current, 'Reaped', 'live-instance-2')

    expect(await reaper.reapDeadInstances()).toBe(1)

    const after = await executionRows(db.current, 'Reaped')
    expect(after.find((e) => e.id === dead)).toMatchObject({ status: 'FAILED', ended_at: expect.any(String) })
    expect(after.find((e) => e.id === dead)!.error).toContain('dead-instance-1')
    expect(after.find((e) => e.id === live)).toMatchObject({ status: 'RUNNING', ended_at: null, error: null })
    const view = (await reaper.executions('Reaped', { offset: 0, limit: 10 })).data.find((e) => e.id === dead)
    expect(view).toMatchObject({ status: 'FAILED', instance: 'dead-instance-1', endedAt: expect.any(String) })

    // Reaping again changes nothing.
    expect(await reaper.reapDeadInstances()).toBe(0)
    expect(await executionRows(db.current, 'Reaped')).toEqual(after)
  })

  it('reaps the executions of an instance that said it stopped', async () => {
    await db.current.db.execute(sql`insert into app_instance (id, hostname, pid, roles, heartbeat_at, stopped_at)
      values ('stopped-instance-3', 'host-c', 4444, 'all', now(), now())`)
    const orphaned = await insertRunning(db.current, 'Reaped', 'stopped-instance-3')
    expect(await reaper.reapDeadInstances()).toBe(1)
    const [row] = (await executionRows(db.current, 'Reaped')).filter((e) => e.id === orphaned)
    expect(row).toMatchObject({ status: 'FAILED' })
    expect(row!.error).toContain('stopped-instance-3')
  })

  it('never touches the work of a running instance that keeps heartbeating, however long it runs', async () => {
    const running = await insertRunning(db.current, 'Reaped', worker.instanceId)
    // Longer than instanceStaleAfterMs: only the worker's own heartbeats keep it alive. A real wait by design: the
    // heartbeats are written by the worker's interval timer and judged stale against the database clock (`now()`),
    // which no injected clock moves.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    await reaper.reapDeadInstances()
    const [row] = (await executionRows(db.current, 'Reaped')).filter((e) => e.id === running)
    expect(row).toMatchObject({ status: 'RUNNING', error: null, ended_at: null })
    const beat = await one<{ age: number }>(
      db.current.db,
      sql`select extract(epoch from now() - heartbeat_at)::float8 as age from app_instance where id = ${worker.instanceId}`,
    )
    expect(beat!.age).toBeLessThan(2)
  })

  it('lets one of several concurrent claims of a due timer win', async () => {
    await db.current.db
      .execute(sql`update job_instance set timer = ${JSON.stringify({ second: '0', minute: '0', hour: '*' })}::jsonb,
      next_fire_at = date_trunc('hour', now()) where code = 'Reaped'`)
    const fired = await Promise.all([
      reaper.fireDueTimers(),
      worker.fireDueTimers(),
      reaper.fireDueTimers(),
      worker.fireDueTimers(),
    ])
    expect(fired.reduce((a, b) => a + b, 0)).toBe(1)
    const timed = await rows<{ n: number }>(
      db.current.db,
      sql`select count(*)::int as n from job_execution e join job_instance i on i.id = e.job_instance_id
        where i.code = 'Reaped' and e.trigger = 'TIMER'`,
    )
    expect(timed[0]!.n).toBe(1)
  })

  it('runs a queued execution once however many instances are told to run it', async () => {
    const created = await one<{ id: string | number }>(
      db.current.db,
      sql`insert into job_execution (job_instance_id, status, trigger) select id, 'QUEUED', 'MANUAL' from job_instance
        where code = 'Reaped' returning id`,
    )
    const id = Number(created!.id)
    await Promise.all([reaper.execute(id), worker.execute(id), reaper.execute(id), worker.execute(id)])
    expect([...reaperRuns, ...workerRuns].filter((run) => run === id)).toEqual([id])
    expect((await reaper.execution(id))?.status).toBe('SUCCESS')
  })
})

describe('stopping', () => {
  it('lets a running execution finish before stop resolves, and records that the instance stopped', async () => {
    const runs: number[] = []
    const runtime = newRuntime(db.current, { worker: true })
    runtime.register(recordingJob('Draining', runs, 1500))
    await runtime.start()
    try {
      const queued = await runtime.runNow('Draining', 'test')
      await waitFor(
        'the execution to start',
        () => runtime.execution(queued.id),
        (e) => e?.status === 'RUNNING',
      )
      await runtime.stop(10_000)
      expect(runs).toEqual([queued.id])
      expect(await runtime.execution(queued.id)).toMatchObject({ status: 'SUCCESS', processedCount: 1 })
      const instance = await one<{ stopped: boolean }>(
        db.current.db,
        sql`select stopped_at is not null as stopped from app_instance where id = ${runtime.instanceId}`,
      )
      expect(instance?.stopped).toBe(true)
    } finally {
      await runtime.stop(1000)
    }
  })
})

describe.skipIf(!onPostgres)('two instances on one database (needs PostgreSQL: set TEST_DATABASE_URL)', () => {
  const runs: number[] = []
  let second: Database
  let a: JobRuntime
  let b: JobRuntime

  beforeAll(async () => {
    second = openPostgres(db.url!, { max: 5 })
    a = newRuntime(db.current, { worker: true })
    b = newRuntime(second, { worker: true })
    a.register(recordingJob('Shared', runs, 30))
    b.register(recordingJob('Shared', runs, 30))
    await Promise.all([a.start(), b.start()])
  })
  afterAll(async () => {
    await Promise.all([a?.stop(1000), b?.stop(1000)])
    await second?.close()
  })

  it('fires a timer every second once per fire time and runs each execution once', async () => {
    await db.current.db
      .execute(sql`update job_instance set timer = ${JSON.stringify({ second: '*', minute: '*', hour: '*' })}::jsonb,
      next_fire_at = date_trunc('second', now()) + interval '1 second' where code = 'Shared'`)
    // Fire times pass on the database clock (`next_fire_at <= now()`), by design: the test waits (polling) for three
    // of them rather than for a fixed time, then stops the timer.
    await waitFor(
      'three timer executions',
      () => executionRows(db.current, 'Shared'),
      (list) => list.length >= 3,
    )
    await db.current.db.execute(sql`update job_instance set active = false where code = 'Shared'`)
    const executions = await waitFor(
      'every execution to finish',
      () => executionRows(db.current, 'Shared'),
      (list) => list.every((e) => e.status !== 'QUEUED' && e.status !== 'RUNNING'),
    )
    expect(executions.length).toBeGreaterThanOrEqual(3)
    expect(executions.every((e) => e.status === 'SUCCESS')).toBe(true)
    expect(new Set(executions.map((e) => e.fire_time)).size).toBe(executions.length)
    expect([...runs].sort((x, y) => x - y)).toEqual(executions.map((e) => e.id))
  })
})
