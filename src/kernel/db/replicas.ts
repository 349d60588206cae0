import pg from 'pg'
import { isDatabaseUnavailable, pgErrorOf } from './database-errors.ts'

/**
 * Streaming read replicas (docs/decisions.md, "Read replicas"): which replica may serve a read, from a background check of
 * each replica's replay position, lag and schema, and the caller's last write position kept in the primary.
 */

/** A WAL position (`pg_lsn` text `16/B374D848`) as a number that compares. */
export function parseLsn(text: string): bigint {
  const [high = '', low = ''] = text.split('/')
  if (!/^[0-9A-Fa-f]{1,8}$/.test(high) || !/^[0-9A-Fa-f]{1,8}$/.test(low))
    throw new Error(`not a WAL position: ${text}`)
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`)
}

export type ReplicaState = 'STARTING' | 'UP' | 'LAGGING' | 'BEHIND_SCHEMA' | 'NOT_A_REPLICA' | 'DOWN'

/** What /health/ready and /metrics show of a replica. */
export interface ReplicaStatus {
  /** host:port/database of its URL, without credentials. */
  readonly name: string
  readonly state: ReplicaState
  /** How far its data is behind the primary's (an upper bound, within one check interval); null when unknown. */
  readonly lagMs: number | null
}

/** The primary's WAL position at an instant of this process's monotonic clock. */
interface Sample {
  at: number
  lsn: bigint
}

/**
 * How stale a replica's data is at most, from the primary's positions sampled over time: a replica that replayed up
 * to the position the primary had at instant t holds everything committed before t. 0 when it replayed past the
 * latest sample. Behind every sample, the lag is not bounded (`bounded: false`): at least the sampled window.
 */
export function lagFromSamples(
  samples: readonly Sample[],
  replay: bigint,
  now: number,
): { lagMs: number; bounded: boolean } {
  const latest = samples.at(-1)
  if (!latest || replay >= latest.lsn) return { lagMs: 0, bounded: latest !== undefined }
  for (let i = samples.length - 1; i >= 0; i--) {
    const sample = samples[i]!
    if (sample.lsn <= replay) return { lagMs: Math.max(0, now - sample.at), bounded: true }
  }
  return { lagMs: Math.max(0, now - samples[0]!.at), bounded: false }
}

/** host:port/database of a URL: a replica's name in health and metrics, never its password. */
export function replicaName(url: string): string {
  const parsed = new URL(url)
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`
}

export interface ReplicaOptions {
  readonly urls: readonly string[]
  /** A replica whose data is staler than this is not read (DATABASE_READ_MAX_LAG_MS). */
  readonly maxLagMs: number
  /** How often each replica's position is checked (and a failed one retried). */
  readonly checkIntervalMs: number
  /** How long a connection to a replica may take before the replica counts as down. */
  readonly connectTimeoutMs: number
  readonly applicationName: string
}

/** One replica: a small pool for its checks and its last known position and state. */
class Replica {
  readonly url: string
  readonly name: string
  state: ReplicaState = 'STARTING'
  lagMs: number | null = null
  replay: bigint | undefined
  private readonly monitor: pg.Pool

  constructor(url: string, options: ReplicaOptions) {
    this.url = url
    this.name = replicaName(url)
    this.monitor = new pg.Pool({
      connectionString: url,
      max: 1,
      application_name: `${options.applicationName}-replica-check`,
      connectionTimeoutMillis: options.connectTimeoutMs,
      idleTimeoutMillis: 0,
      options: `-c statement_timeout=${options.connectTimeoutMs}`,
    })
    this.monitor.on('error', () => undefined)
  }

  /** Reads the replica's replay position and whether it has replayed the primary's schema. */
  async check(schema: string | null, samples: readonly Sample[], maxLagMs: number): Promise<void> {
    try {
      const found = await this.monitor.query<{ recovery: boolean; replay: string | null; migrated: boolean }>(
        `select pg_is_in_recovery() as recovery, pg_last_wal_replay_lsn()::text as replay,
           exists (select 1 from obol_schema_migration where name = $1) as migrated`,
        [schema ?? ''],
      )
      const row = found.rows[0]!
      if (!row.recovery || row.replay === null) {
        this.set('NOT_A_REPLICA', null, undefined)
        return
      }
      const replay = parseLsn(row.replay)
      const { lagMs, bounded } = lagFromSamples(samples, replay, performance.now())
      if (schema === null || !row.migrated) this.set('BEHIND_SCHEMA', lagMs, replay)
      else if (!bounded || lagMs > maxLagMs) this.set('LAGGING', lagMs, replay)
      else this.set('UP', lagMs, replay)
    } catch (error) {
      // A replica restored before the first migration has no bookkeeping table yet.
      if (pgErrorOf(error)?.code === '42P01') this.set('BEHIND_SCHEMA', null, undefined)
      else this.set('DOWN', null, undefined)
    }
  }

  set(state: ReplicaState, lagMs: number | null, replay: bigint | undefined): void {
    this.state = state
    this.lagMs = lagMs
    this.replay = replay
  }

  close(): Promise<void> {
    return this.monitor.end().catch(() => undefined)
  }
}

/**
 * The replicas of one process. `check()` runs every interval in the background; `choose(position)` answers, without
 * a round trip, a replica that is up, migrated, within the lag bound and replayed past `position`, or undefined
 * (read the primary). Choices rotate over the eligible replicas.
 */
export class Replicas {
  private readonly replicas: Replica[]
  private samples: Sample[] = []
  private schema: string | null = null
  private next = 0
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private closed = false
  private readonly primary: pg.Pool
  readonly options: ReplicaOptions

  constructor(primary: pg.Pool, options: ReplicaOptions) {
    this.primary = primary
    this.options = options
    this.replicas = options.urls.map((url) => new Replica(url, options))
  }

  /** Starts the background checks (the first one at once). */
  start(): void {
    if (this.timer || this.closed) return
    void this.check()
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs)
    this.timer.unref()
  }

  /** One round of checks: the primary's position and schema, then every replica's (one at a time per process). */
  check(): Promise<void> {
    this.running ??= this.checkNow().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async checkNow(): Promise<void> {
    try {
      const found = await this.primary.query<{ lsn: string; schema: string | null }>(
        'select pg_current_wal_lsn()::text as lsn, (select max(name) from obol_schema_migration) as schema',
      )
      const row = found.rows[0]!
      const now = performance.now()
      this.samples.push({ at: now, lsn: parseLsn(row.lsn) })
      // Samples older than twice the lag bound (and a minute) can no longer make a replica eligible.
      const keep = now - Math.max(2 * this.options.maxLagMs, 60_000)
      while (this.samples.length > 1 && this.samples[0]!.at < keep) this.samples.shift()
      this.schema = row.schema
    } catch {
      // The primary is unreachable or not migrated: the samples so far still bound the replicas' lag.
    }
    await Promise.all(this.replicas.map((replica) => replica.check(this.schema, this.samples, this.options.maxLagMs)))
  }

  /** A replica that may serve a read of a caller whose last write is at `position` (undefined: none known). */
  choose(position: bigint | undefined): { url: string; name: string } | undefined {
    const eligible = this.replicas.filter(
      (r) => r.state === 'UP' && r.replay !== undefined && (position === undefined || r.replay >= position),
    )
    if (eligible.length === 0) return undefined
    const replica = eligible[this.next++ % eligible.length]!
    return { url: replica.url, name: replica.name }
  }

  /** Whether any replica could serve a read now (when none can, the caller's position need not be looked up). */
  anyUp(): boolean {
    return this.replicas.some((r) => r.state === 'UP')
  }

  /** A read on this replica failed for want of a connection: no read goes there until a check finds it back. */
  markDown(url: string, error: unknown): void {
    if (!isDatabaseUnavailable(error)) return
    for (const replica of this.replicas) if (replica.url === url) replica.set('DOWN', null, undefined)
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      state: r.state,
      lagMs: r.lagMs === null ? null : Math.round(r.lagMs),
    }))
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.running?.catch(() => undefined)
    await Promise.all(this.replicas.map((r) => r.close()))
  }
}
