import os from 'node:os'
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { instantText } from '../model/json.ts'
import { PgBoss, fromDrizzle, fromPglite } from 'pg-boss'
import type { Logger } from 'pino'
import { one, rows, type Database, type Db } from '../db/database.ts'
import type { Clock } from '../clock.ts'
import { AppError } from '../errors.ts'
import { readTenantSettings } from '../settings.ts'
import { defaultPageLimit, pageOf, type PageRequest } from '../http/pagination.ts'
import { compileSchedule, ScheduleExpressionError, type ScheduleExpression } from './schedule-expression.ts'

export interface JobContext {
  readonly executionId: number
  readonly jobCode: string
  readonly parameters: Record<string, unknown>
  readonly db: Db
  readonly clock: Clock
  readonly log: Logger
  /** Aborted when the process is stopping: long jobs should end their current batch and return. */
  readonly signal: AbortSignal
  /** Records progress so far (visible in the execution while it runs). */
  progress(processed: number, failed: number): Promise<void>
}

export interface JobResult {
  processed?: number
  failed?: number
}

export interface JobType {
  readonly name: string
  readonly description: string
  run(context: JobContext): Promise<JobResult>
  /** A job instance created at start when missing (an administrator may then change or disable it). */
  readonly defaultInstance?: {
    code: string
    description: string
    timer?: ScheduleExpression
    parameters?: Record<string, unknown>
  }
}

export interface JobRuntimeOptions {
  database: Database
  clock: Clock
  log: Logger
  heartbeatIntervalMs: number
  instanceStaleAfterMs: number
  timerPollIntervalMs: number
  /** Whether this process runs jobs (role `worker` or `all`); API-only processes only enqueue. */
  worker: boolean
  roles: string
  /**
   * Recurring tasks (`every`) by name that `start` leaves stopped: tests run them by hand (`tick`) on an injected
   * clock, or start and stop them themselves.
   */
  held?: readonly string[]
}

/** A recurring task of the job runtime (`JobRuntime.every`): started and stopped with it. */
export interface RecurringTask<T = unknown> {
  readonly name: string
  /** Whether it is scheduled now. */
  readonly running: boolean
  /** One run now, outside its schedule; answers what the task answers. */
  tick(): Promise<T>
  /** Schedules it (when not already); with `atStart`, resolves once its first run ended. */
  start(): Promise<void>
  /** Unschedules it and waits for a run under way to end (its transactions commit or roll back). */
  stop(): Promise<void>
}

/** How long after a run ends the next starts: a fixed number of milliseconds, or read before each wait. */
export type RecurringInterval = number | (() => Promise<number>)

export interface ExecutionView {
  id: number
  jobCode: string
  status: string
  trigger: string
  fireTime: string | null
  queuedAt: string
  startedAt: string | null
  endedAt: string | null
  processedCount: number
  failedCount: number
  error: string | null
  instance: string | null
}

/**
 * Ends what instances that stopped heartbeating left running: `selfId` is this instance, `staleSeconds` the
 * silence after which another is dead (the database clock decides).
 */
export type StaleSweep = (db: Db, selfId: string, staleSeconds: number) => Promise<unknown>

const QUEUE = 'obol-job-run'

/** Work a module hands to every worker instance: one message, handled once (again after a failure or a crash). */
export interface QueueDefinition<T extends object> {
  readonly name: string
  handle(data: T, context: { readonly signal: AbortSignal; readonly log: Logger }): Promise<void>
  /**
   * A handler that stops heartbeating for this long (its process was killed) has its message taken by another
   * instance (pg-boss's heartbeat supervision, at least 10 s). Default 10.
   */
  readonly heartbeatSeconds?: number
  /** A handler that throws gets its message again after this delay, up to `retryLimit` times (defaults 5 s, 20). */
  readonly retryDelaySeconds?: number
  readonly retryLimit?: number
  /** Handlers of this queue one instance runs at once (pg-boss `localConcurrency`). Default 1. */
  readonly concurrency?: number
  /**
   * Wake the workers when the sending transaction commits (LISTEN/NOTIFY) instead of at their next poll, up to 0.5 s
   * later: for work a user waits for. Default false.
   */
  readonly wakeAtCommit?: boolean
}

const executionColumns = sql`e.id, i.code as "jobCode", e.status, e.trigger,
  ${instantText(sql`e.fire_time`)} as "fireTime",
  ${instantText(sql`e.queued_at`)} as "queuedAt",
  ${instantText(sql`e.started_at`)} as "startedAt",
  ${instantText(sql`e.ended_at`)} as "endedAt",
  e.processed_count as "processedCount", e.failed_count as "failedCount", e.error, e.app_instance_id as instance`

/** node-postgres reads int8 as a string; execution ids are JSON numbers on both drivers. */
function executionView(row: Omit<ExecutionView, 'id'> & { id: number | string }): ExecutionView {
  return { ...row, id: Number(row.id) }
}

/** pg-boss's Drizzle adapter on a transaction: its statement runs there, committed or rolled back with it. */
function adapter(tx: Db) {
  // Db's execute answers `unknown` in its type; on both drivers it is `{ rows }`, which the adapter reads.
  return fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql)
}

/**
 * Loads a queue into pg-boss's queue cache now, outside any transaction. `send` reads the cache; on a miss it reads
 * the queue on pg-boss's own connection, which on PGlite (one connection) waits for the sender's transaction to end:
 * a deadlock. Answers nothing: the lookup of a job that does not exist.
 */
async function warmQueue(boss: PgBoss, name: string): Promise<void> {
  await boss.findJobs(name, { id: '00000000-0000-0000-0000-000000000000' })
}

/** Validates a timer and gives its next fire time after `after` in the tenant's zone (null: never again). */
export function nextFireTime(timer: ScheduleExpression, timeZone: string, after: Date): Date | null {
  return compileSchedule(timer, timeZone).next(after)
}

export function timerError(error: unknown): AppError | undefined {
  if (error instanceof ScheduleExpressionError) {
    return new AppError('INVALID_CRON', error.message, {
      details: [{ field: `timer.${error.field}`, message: error.message }],
    })
  }
  return undefined
}

/**
 * Durable jobs on pg-boss. Job instances and their executions live in our tables; pg-boss carries the
 * "run this execution" messages between instances. A timer's due time is claimed by a conditional update
 * plus a unique (instance, fire time) execution row, so it fires once however many instances poll.
 */
export class JobRuntime {
  readonly instanceId = randomUUID()
  private readonly types = new Map<string, JobType>()
  private readonly options: JobRuntimeOptions
  private boss: PgBoss | undefined
  private readonly stopping = new AbortController()
  private running = 0
  private readonly staleSweeps: StaleSweep[] = []
  private readonly queues = new Map<string, { definition: QueueDefinition<object>; ready?: Promise<void> }>()
  private readonly recurring = new Map<string, Recurring>()
  private started = false

  constructor(options: JobRuntimeOptions) {
    this.options = options
  }

  register(type: JobType): void {
    if (this.types.has(type.name)) throw new Error(`job type ${type.name} registered twice`)
    this.types.set(type.name, type)
  }

  /**
   * Adds work to the stale-instance sweep: runs a module keeps outside job executions (Expert exports) whose
   * instance stopped heartbeating are ended there too.
   */
  addStaleSweep(sweep: StaleSweep): void {
    this.staleSweeps.push(sweep)
  }

  jobTypes(): JobType[] {
    return [...this.types.values()]
  }

  private get db(): Db {
    return this.options.database.db
  }

  async start(): Promise<void> {
    const { database, log } = this.options
    await this.db.execute(
      sql`insert into app_instance (id, hostname, pid, roles) values (${this.instanceId}, ${os.hostname()}, ${process.pid}, ${this.options.roles})`,
    )
    await this.ensureDefaultInstances()
    // pg-boss's supervision (its monitor pass) gives the message of a handler that stopped heartbeating — its process
    // died — to another instance: checked at a third of the silence after which an instance counts as dead.
    const checkSeconds = Math.max(1, Math.round(this.options.instanceStaleAfterMs / 3000))
    const supervision = {
      // Queues that ask for it (`wakeAtCommit`) wake their workers at the sender's commit; the others still poll.
      useListenNotify: true,
      schedule: false,
      supervise: this.options.worker,
      superviseIntervalSeconds: checkSeconds,
      monitorIntervalSeconds: checkSeconds,
    }
    const boss = new PgBoss(
      database.kind === 'pglite'
        ? { db: fromPglite(database.pglite!), ...supervision }
        : { connectionString: database.url!, max: 3, ...supervision },
    )
    boss.on('error', (error) => log.error({ err: error }, 'job queue error'))
    await boss.start()
    await boss.createQueue(QUEUE)
    await warmQueue(boss, QUEUE)
    this.boss = boss
    const opening: Promise<void>[] = []
    for (const [name, queue] of this.queues) opening.push((queue.ready = this.openQueue(boss, name)))
    await Promise.all(opening)
    if (this.options.worker) {
      await boss.work<{ executionId: number }>(QUEUE, { pollingIntervalSeconds: 0.5, batchSize: 1 }, async (jobs) => {
        for (const job of jobs) await this.execute(job.data.executionId)
      })
      this.every('job-timers', this.options.timerPollIntervalMs, () => this.fireDueTimers(), { atStart: false })
      this.every('dead-instances', this.options.heartbeatIntervalMs, () => this.reapDeadInstances(), {
        atStart: false,
      })
    }
    // Every instance heartbeats, API-only ones too.
    this.every('heartbeat', this.options.heartbeatIntervalMs, () => this.heartbeat(), {
      atStart: false,
      everyInstance: true,
    })
    this.started = true
    const starting: Promise<void>[] = []
    for (const task of this.recurring.values()) if (this.startsWithRuntime(task)) starting.push(task.start())
    await Promise.all(starting)
  }

  private startsWithRuntime(task: Recurring): boolean {
    return (this.options.worker || task.everyInstance) && !this.options.held?.includes(task.name)
  }

  /**
   * A recurring task: `task` runs, then again `interval` after each run ended (never two runs at once), from the
   * runtime's `start` to its `stop`, on every instance that runs jobs (role `all` or `worker`). With `atStart` (the
   * default) the first run is at start, so work that fell due while every instance was down is done then. For work
   * each instance claims in the database itself (`for update skip locked`, conditional updates, leases): it needs
   * no message. The one way Obol runs background loops; may be called before or after `start`.
   */
  every<T>(
    name: string,
    interval: RecurringInterval,
    task: () => Promise<T>,
    options: { atStart?: boolean; everyInstance?: boolean } = {},
  ): RecurringTask<T> {
    // An app built again on this runtime (tests build several) replaces the task of the same name.
    const existing = this.recurring.get(name)
    if (existing) {
      existing.task = task
      existing.interval = interval
      return existing as Recurring<T>
    }
    const entry = new Recurring<T>(name, interval, task, options, this.options.log)
    this.recurring.set(name, entry)
    if (this.started && this.startsWithRuntime(entry)) void entry.start()
    return entry
  }

  /**
   * Declares a queue of module work (`send` puts messages in it; every worker instance handles them). May be called
   * before or after `start`.
   */
  defineQueue<T extends object>(definition: QueueDefinition<T>): void {
    // An app built again on this runtime (tests build several) replaces the handler of the same queue.
    const existing = this.queues.get(definition.name)
    if (existing) {
      existing.definition = definition
      return
    }
    // Stored untyped: each queue's handler reads the data its own sender wrote.
    const entry: { definition: QueueDefinition<object>; ready?: Promise<void> } = { definition }
    this.queues.set(definition.name, entry)
    if (this.boss) entry.ready = this.openQueue(this.boss, definition.name)
  }

  private async openQueue(boss: PgBoss, name: string): Promise<void> {
    const definition = this.queues.get(name)?.definition
    if (!definition) throw new Error(`queue ${name} is not defined`)
    await boss.createQueue(definition.name, {
      heartbeatSeconds: definition.heartbeatSeconds ?? 10,
      retryLimit: definition.retryLimit ?? 20,
      retryDelay: definition.retryDelaySeconds ?? 5,
      notify: definition.wakeAtCommit ?? false,
    })
    await warmQueue(boss, definition.name)
    if (!this.options.worker) return
    const log = this.options.log.child({ queue: definition.name })
    const options = { pollingIntervalSeconds: 0.5, batchSize: 1, localConcurrency: definition.concurrency ?? 1 }
    await boss.work<object>(definition.name, options, async (jobs) => {
      for (const job of jobs) {
        this.running++
        try {
          // The queue's current handler (an app built again replaces it).
          await this.queues.get(name)!.definition.handle(job.data, { signal: this.stopping.signal, log })
        } catch (error) {
          log.warn({ err: error }, 'queued work failed; it is retried')
          throw error
        } finally {
          this.running--
        }
      }
    })
  }

  /**
   * Puts a message in a queue inside the caller's transaction: it is handled once that transaction commits, and
   * never when it rolls back. `singletonKey`: at most one message with this key waits in the queue at a time.
   */
  async send(tx: Db, queue: string, data: object, options: { singletonKey?: string } = {}): Promise<void> {
    const entry = this.queues.get(queue)
    if (!entry) throw new Error(`queue ${queue} is not defined`)
    if (!this.boss || !entry.ready) throw new AppError('SERVICE_UNAVAILABLE', 'The job runtime is not started')
    await entry.ready
    // pg-boss's own statement runs on the caller's transaction (its Drizzle adapter): the message commits or rolls
    // back with the change that decided it.
    await this.boss.send(queue, data, { db: adapter(tx), ...options })
  }

  async stop(timeoutMs: number): Promise<void> {
    this.stopping.abort()
    this.started = false
    await Promise.all([...this.recurring.values()].map((task) => task.stop()))
    // Graceful: pg-boss waits for handlers in progress (up to the timeout) before resolving.
    await this.boss?.stop({ graceful: true, timeout: Math.max(timeoutMs, 1000), close: true })
    this.boss = undefined
    await this.db
      .execute(sql`update app_instance set stopped_at = now() where id = ${this.instanceId}`)
      .catch(() => undefined)
  }

  /** The silence after which an instance counts as dead (INSTANCE_STALE_AFTER_MS): its leases end with it. */
  get instanceStaleAfterMs(): number {
    return this.options.instanceStaleAfterMs
  }

  /** Number of executions this process is running now. */
  get activeExecutions(): number {
    return this.running
  }

  private async ensureDefaultInstances(): Promise<void> {
    const settings = await readTenantSettings(this.db)
    for (const type of this.types.values()) {
      const d = type.defaultInstance
      if (!d) continue
      const next = d.timer ? nextFireTime(d.timer, settings.timeZone, this.options.clock.now()) : null
      await this.db
        .execute(sql`insert into job_instance (code, description, job_type, parameters, timer, next_fire_at, creator)
        values (${d.code}, ${d.description}, ${type.name}, ${JSON.stringify(d.parameters ?? {})}::jsonb,
          ${d.timer ? JSON.stringify(d.timer) : null}::jsonb, ${next?.toISOString() ?? null}::timestamptz, 'system')
        on conflict (code) do nothing`)
    }
  }

  /** Queues an execution of a job instance now, whatever its timer; returns the execution. */
  async runNow(code: string, requestedBy: string): Promise<ExecutionView> {
    const instance = await one<{ id: number; job_type: string }>(
      this.db,
      sql`select id, job_type from job_instance where code = ${code}`,
    )
    if (!instance) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
    if (!this.types.has(instance.job_type)) {
      throw new AppError(
        'INVALID_STATE',
        `Job ${code} has type ${instance.job_type}, which this version does not provide`,
      )
    }
    // The execution and its message commit together (pg-boss's statement on this transaction): none is lost.
    const id = await this.db.transaction(async (tx) => {
      const created = await one<{ id: string | number }>(
        tx,
        sql`insert into job_execution (job_instance_id, status, trigger, requested_by) values (${instance.id}, 'QUEUED', 'MANUAL', ${requestedBy}) returning id`,
      )
      const id = Number(created!.id)
      await this.enqueue(tx, id)
      return id
    })
    // Read after the commit: a worker may already have started it, which the answer then shows.
    return (await this.execution(id))!
  }

  async execution(id: number): Promise<ExecutionView | undefined> {
    const found = await one<ExecutionView>(
      this.db,
      sql`select ${executionColumns} from job_execution e join job_instance i on i.id = e.job_instance_id where e.id = ${id}`,
    )
    return found && executionView(found)
  }

  async executions(code: string, request: PageRequest) {
    const page = pageOf(request, await defaultPageLimit(this.db))
    // One snapshot for the page and the total: executions are inserted concurrently by timers and workers.
    return this.db.transaction(
      async (tx) => {
        const instance = await one<{ id: number }>(tx, sql`select id from job_instance where code = ${code}`)
        if (!instance) throw new AppError('ENTITY_NOT_FOUND', `Job ${code} not found`)
        const data = await rows<ExecutionView>(
          tx,
          sql`select ${executionColumns} from job_execution e join job_instance i on i.id = e.job_instance_id
            where e.job_instance_id = ${instance.id} order by e.id desc limit ${page.limit} offset ${page.offset}`,
        )
        const total = await one<{ n: string }>(
          tx,
          sql`select count(*)::text as n from job_execution where job_instance_id = ${instance.id}`,
        )
        return { total: Number(total?.n ?? 0), offset: page.offset, limit: page.limit, data: data.map(executionView) }
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    )
  }

  /** Sends the message of an execution inside the transaction that created it (pg-boss's Drizzle adapter). */
  private async enqueue(tx: Db, executionId: number): Promise<void> {
    if (!this.boss) throw new AppError('SERVICE_UNAVAILABLE', 'The job runtime is not started')
    await this.boss.send(QUEUE, { executionId }, { db: adapter(tx) })
  }

  /** After a change of the tenant time zone (in its transaction): every timer's next firing, in the new zone. */
  async rescheduleTimers(tx: Db, timeZone: string): Promise<void> {
    const timers = await rows<{ id: string | number; timer: ScheduleExpression }>(
      tx,
      sql`select id, timer from job_instance where active and timer is not null order by id for update`,
    )
    const now = this.options.clock.now()
    for (const job of timers) {
      let next: Date | null
      try {
        next = nextFireTime(job.timer, timeZone, now)
      } catch {
        next = null
      }
      await tx.execute(
        sql`update job_instance set next_fire_at = ${next?.toISOString() ?? null}::timestamptz where id = ${job.id}`,
      )
    }
  }

  /** Claims every due timer once and queues its execution. Missed firings collapse into one. */
  async fireDueTimers(): Promise<number> {
    const due = await rows<{ id: string | number; code: string; timer: ScheduleExpression; next_fire_at: string }>(
      this.db,
      sql`select id, code, timer, next_fire_at::text from job_instance
        where active and timer is not null and next_fire_at is not null and next_fire_at <= now()`,
    )
    if (due.length === 0) return 0
    const { timeZone } = await readTenantSettings(this.db)
    const now = this.options.clock.now()
    let fired = 0
    for (const job of due) {
      let next: Date | null
      try {
        next = nextFireTime(job.timer, timeZone, now)
      } catch {
        next = null
      }
      const claimed = await this.db.transaction(async (tx) => {
        const won = await rows<{ id: unknown }>(
          tx,
          sql`update job_instance set next_fire_at = ${next?.toISOString() ?? null}::timestamptz, last_fire_at = next_fire_at
            where id = ${job.id} and next_fire_at = ${job.next_fire_at}::timestamptz returning id`,
        )
        if (won.length === 0) return undefined
        const inserted = await rows<{ id: string | number }>(
          tx,
          sql`insert into job_execution (job_instance_id, status, trigger, fire_time)
            values (${job.id}, 'QUEUED', 'TIMER', ${job.next_fire_at}::timestamptz) on conflict do nothing returning id`,
        )
        if (!inserted[0]) return undefined
        // The message commits with the claim: a crash after the commit loses nothing.
        await this.enqueue(tx, Number(inserted[0].id))
        return Number(inserted[0].id)
      })
      if (claimed !== undefined) fired++
    }
    return fired
  }

  /** Runs one execution if it is still QUEUED: a duplicate message finds it taken and does nothing. */
  async execute(executionId: number): Promise<void> {
    const claimed = await one<{ code: string; job_type: string; parameters: Record<string, unknown> }>(
      this.db,
      sql`update job_execution e set status = 'RUNNING', started_at = now(), app_instance_id = ${this.instanceId}
        from job_instance i where e.id = ${executionId} and e.status = 'QUEUED' and i.id = e.job_instance_id
        returning i.code, i.job_type, i.parameters`,
    )
    if (!claimed) return
    const type = this.types.get(claimed.job_type)
    const log = this.options.log.child({ job: claimed.code, execution: executionId })
    this.running++
    try {
      if (!type) throw new Error(`job type ${claimed.job_type} is not registered`)
      const result = await type.run({
        executionId,
        jobCode: claimed.code,
        parameters: claimed.parameters,
        db: this.db,
        clock: this.options.clock,
        log,
        signal: this.stopping.signal,
        progress: async (processed, failed) => {
          await this.db.execute(
            sql`update job_execution set processed_count = ${processed}, failed_count = ${failed} where id = ${executionId}`,
          )
        },
      })
      await this.db.execute(sql`update job_execution set status = 'SUCCESS', ended_at = now(),
        processed_count = ${result.processed ?? 0}, failed_count = ${result.failed ?? 0}
        where id = ${executionId} and status = 'RUNNING'`)
    } catch (error) {
      log.warn({ err: error }, 'job execution failed')
      const message = error instanceof Error ? error.message : String(error)
      await this.db
        .execute(sql`update job_execution set status = 'FAILED', ended_at = now(), error = ${message.slice(0, 2000)}
        where id = ${executionId} and status = 'RUNNING'`)
    } finally {
      this.running--
    }
  }

  async heartbeat(): Promise<void> {
    await this.db.execute(sql`update app_instance set heartbeat_at = now() where id = ${this.instanceId}`)
  }

  /**
   * Executions left RUNNING by an instance that stopped heartbeating are marked FAILED; executions of live
   * instances are never touched. Uses the database clock, shared by every instance.
   */
  async reapDeadInstances(): Promise<number> {
    const staleSeconds = this.options.instanceStaleAfterMs / 1000
    const reaped = await rows<{ id: unknown }>(
      this.db,
      sql`update job_execution e set status = 'FAILED', ended_at = now(),
          error = 'instance ' || coalesce(e.app_instance_id, '?') || ' stopped heartbeating while running this execution'
        where e.status = 'RUNNING' and e.app_instance_id <> ${this.instanceId} and not exists (
          select 1 from app_instance a where a.id = e.app_instance_id and a.stopped_at is null
            and a.heartbeat_at > now() - make_interval(secs => ${staleSeconds}))
        returning e.id`,
    )
    for (const sweep of this.staleSweeps) await sweep(this.db, this.instanceId, staleSeconds)
    return reaped.length
  }
}

/** A recurring task's schedule: one run at a time, the next `interval` after the previous ended. */
class Recurring<T = unknown> implements RecurringTask<T> {
  readonly name: string
  interval: RecurringInterval
  task: () => Promise<T>
  readonly atStart: boolean
  readonly everyInstance: boolean
  private readonly log: Pick<Logger, 'warn'>
  private handle: NodeJS.Timeout | undefined
  private current: Promise<unknown> | undefined
  private scheduled = false

  constructor(
    name: string,
    interval: RecurringInterval,
    task: () => Promise<T>,
    options: { atStart?: boolean; everyInstance?: boolean },
    log: Pick<Logger, 'warn'>,
  ) {
    this.name = name
    this.interval = interval
    this.task = task
    this.atStart = options.atStart ?? true
    this.everyInstance = options.everyInstance ?? false
    this.log = log
  }

  get running(): boolean {
    return this.scheduled
  }

  tick(): Promise<T> {
    return this.task()
  }

  start(): Promise<void> {
    if (this.scheduled) return Promise.resolve()
    this.scheduled = true
    if (!this.atStart) {
      void this.wait()
      return Promise.resolve()
    }
    return new Promise((resolve) => this.next(0, resolve))
  }

  async stop(): Promise<void> {
    this.scheduled = false
    clearTimeout(this.handle)
    this.handle = undefined
    await this.current
  }

  private async wait(): Promise<void> {
    const interval = this.interval
    const ms = typeof interval === 'number' ? interval : await interval().catch(() => 1000)
    if (this.scheduled) this.next(ms)
  }

  private next(delayMs: number, ran?: () => void): void {
    clearTimeout(this.handle)
    this.handle = setTimeout(() => {
      this.current = this.task()
        .catch((error: unknown) =>
          this.log.warn({ err: error, task: this.name }, `${this.name} failed; run again later`),
        )
        .finally(() => ran?.())
        .then(() => this.wait())
        .finally(() => (this.current = undefined))
    }, delayMs)
    this.handle.unref()
  }
}
