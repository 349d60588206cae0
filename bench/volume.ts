/**
 * Volume benchmark (issue 24, item 7): the Query API on many wallet operations, each case against hand-written SQL in
 * the same app (ratios, as bench:query prints), then the same with the Query API reading a streaming replica. Lists
 * count their total, as the Query API does for an entity not declared huge-volume (the baseline too).
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/obol_volume): kept between runs; migrated, given
 *     the demo tenant and topped up to BENCH_VOLUME wallet operations (default 10,000,000) by the volume generator.
 *   BENCH_READ_URL: a streaming replica of that database; when set, every case runs again with the Query API on it.
 *   BENCH_REPLICA=1: instead of both, a throwaway primary and streaming replica of its own (initdb, pg_basebackup,
 *     see test/support/replica-cluster.ts), seeded, measured and removed.
 *   BENCH_DURATION_SEC (default 4, per round and side), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 10).
 *   Cases that read most of the table, (a) to (c), take seconds a request on 10 million operations: they run with
 *   BENCH_SCAN_CONNECTIONS (default 2) for BENCH_SCAN_DURATION_SEC (default 20) per round and side, each request
 *   allowed 120 s.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import pino from 'pino'
import { sql, type SQL } from 'drizzle-orm'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { one, openPostgres, rows, type Database } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'
import { seedDemo } from '../src/seed.ts'
import { seedVolume } from '../src/seed-volume.ts'
import { formatRow, loadAlternating } from './load.ts'
import { startReplicaCluster } from '../test/support/replica-cluster.ts'

let url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/obol_volume'
let readUrl = process.env.BENCH_READ_URL
const volume = Number(process.env.BENCH_VOLUME ?? 10_000_000)
const durationSec = Number(process.env.BENCH_DURATION_SEC ?? 4)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const scanConnections = Number(process.env.BENCH_SCAN_CONNECTIONS ?? 2)
const scanDurationSec = Number(process.env.BENCH_SCAN_DURATION_SEC ?? 20)
const SECRET = 'bench-admin-secret-0123456789'

/** A date range of one month, two months before today: a few percent of two years of operations. */
const today = new Date()
const monthStart = (monthsBack: number) =>
  new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - monthsBack, 1)).toISOString().slice(0, 10)
const RANGE = { from: monthStart(2), to: monthStart(1) }
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value))

/** The part of an answer the cases compare. */
interface Answer {
  total?: number
  data: Record<string, unknown>[]
}

interface Case {
  name: string
  obol: string
  baseline: (database: Database) => SQL
  /** What both sides must agree on before measuring. */
  same: (body: Answer) => unknown
  /** Reads most of the table (no index narrows it): measured with the scan settings. */
  scan?: boolean
}

const CASES: Case[] = [
  {
    name: '(a) count',
    obol: '/api/v1/query/walletOperation/count',
    baseline: () => sql`select json_build_object('total', count(*))::text as j from wallet_operation`,
    same: (body) => body.total,
    scan: true,
  },
  {
    name: '(b) filtered page of 100',
    obol: `/api/v1/query/walletOperation?filters=${q({ status: 'TREATED', 'fromRange amountWithoutTax': 10 })}&fields=code,operationDate,amountWithoutTax&sortBy=id&limit=100`,
    baseline: () =>
      sql`select json_build_object('total', (select count(*) from wallet_operation where status = 'TREATED' and amount_without_tax >= 10),
            'limit', 100, 'offset', 0, 'data', coalesce(json_agg(json_build_object(
            'code', w.code, 'operationDate', w.operation_date, 'amountWithoutTax', w.amount_without_tax) order by w.id), '[]'))::text as j
          from (select * from wallet_operation where status = 'TREATED' and amount_without_tax >= 10 order by id limit 100) w`,
    same: (body) => [body.total, body.data.map((w) => w.code)],
    scan: true,
  },
  {
    name: '(c) groupBy status, SUM',
    obol: '/api/v1/query/walletOperation?fields=status,COUNT(id),SUM(amountWithoutTax)&groupBy=status',
    baseline: () =>
      sql`select json_build_object('data', json_agg(json_build_object('status', g.status, 'COUNT(id)', g.n,
            'SUM(amountWithoutTax)', g.s) order by g.status))::text as j
          from (select status, count(id) as n, sum(amount_without_tax) as s from wallet_operation group by status) g`,
    same: (body) => body.data.map((g) => [g.status, Number(g['COUNT(id)'])]),
    scan: true,
  },
  {
    name: '(d) date-range list of 100',
    obol: `/api/v1/query/walletOperation?filters=${q({ 'fromRange operationDate': RANGE.from, 'toRange operationDate': RANGE.to })}&fields=code,operationDate&sortBy=id&limit=100`,
    baseline: () =>
      sql`select json_build_object('total', (select count(*) from wallet_operation
              where operation_date >= ${RANGE.from}::date and operation_date < ${RANGE.to}::date),
            'limit', 100, 'offset', 0, 'data', coalesce(json_agg(json_build_object(
            'code', w.code, 'operationDate', w.operation_date) order by w.id), '[]'))::text as j
          from (select * from wallet_operation where operation_date >= ${RANGE.from}::date and operation_date < ${RANGE.to}::date
            order by id limit 100) w`,
    same: (body) => [body.total, body.data.map((w) => w.code)],
  },
]

async function main(): Promise<void> {
  const cluster =
    process.env.BENCH_REPLICA === '1'
      ? await startReplicaCluster({ database: 'obol_volume', applyDelayMs: 0 })
      : undefined
  if (cluster) {
    url = cluster.primaryUrl
    readUrl = cluster.replicaUrl
  }
  try {
    await run()
  } finally {
    await cluster?.destroy()
  }
}

/** The kept database is created on the first run (on the server of its URL, through its `postgres` database). */
async function createDatabaseIfMissing(databaseUrl: string): Promise<void> {
  const target = new URL(databaseUrl)
  const name = decodeURIComponent(target.pathname.slice(1))
  const admin = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).href })
  await admin.connect()
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) await admin.query(`create database "${name.replaceAll('"', '""')}"`)
  } finally {
    await admin.end()
  }
}

async function run(): Promise<void> {
  await createDatabaseIfMissing(url)
  const database = openPostgres(url, { max: 20 })
  try {
    await migrate(database.db)
    await seedDemo(database.db)
    const present = Number(
      (await one<{ n: string }>(database.db, sql`select count(*)::text as n from wallet_operation`))?.n ?? 0,
    )
    if (present < volume) {
      process.stdout.write(`Adding ${(volume - present).toLocaleString('en-US')} wallet operations...\n`)
      await seedVolume(database.db, {
        count: volume - present,
        clock: systemClock,
        onProgress: ({ written, total }) => process.stdout.write(`  ${written.toLocaleString('en-US')} / ${total}\n`),
      })
    }
    await database.db.execute(sql`analyze wallet_operation`)
    const total = (await rows<{ n: string }>(database.db, sql`select count(*)::text as n from wallet_operation`))[0]!.n
    process.stdout.write(`${Number(total).toLocaleString('en-US')} wallet operations\n`)
    const results = [`Primary:`, ...(await measure(undefined))]
    if (readUrl) results.push('Query API on the replica (baseline on the primary):', ...(await measure(readUrl)))
    process.stdout.write(
      `\nQuery API vs hand-written SQL, ${Number(total).toLocaleString('en-US')} wallet operations, ${rounds} alternating rounds of ${durationSec} s per side, ${connections} connections (scans (a)–(c): ${scanDurationSec} s, ${scanConnections} connections):\n${results.join('\n')}\n`,
    )
  } finally {
    await database.close()
  }
}

/** Every case on an app whose Query API reads the replica at `replica` (the primary when undefined). */
async function measure(replica: string | undefined): Promise<string[]> {
  const database = openPostgres(url, { max: 20, ...(replica ? { readUrls: [replica] } : {}) })
  const config = loadConfig({ OBOL_ADMIN_CLIENT_SECRET: SECRET, LOG_LEVEL: 'silent' })
  const jobs = new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 60_000,
    instanceStaleAfterMs: 600_000,
    timerPollIntervalMs: 60_000,
    worker: false,
    roles: 'api',
  })
  const app = await buildApp({
    database,
    clock: systemClock,
    jobs,
    publicUrl: 'http://127.0.0.1',
    auth: config.auth,
    extraRoutes: (server) => {
      for (const [index, c] of CASES.entries())
        server.get(
          `/bench/baseline/${index}`,
          { config: { policy: { role: 'queryUser' } }, schema: { hide: true } },
          async (_request, reply) => {
            const found = await rows<{ j: string }>(database.db, c.baseline(database))
            return reply.type('application/json; charset=utf-8').send(found[0]!.j)
          },
        )
    },
  })
  const results: string[] = []
  try {
    await app.server.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`
    const tokenResponse = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: SECRET }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const headers = { authorization: `Bearer ${token}` }
    if (replica) await untilReplicaUp(base)
    for (const [index, c] of CASES.entries()) {
      const obolUrl = `${base}${c.obol}`
      const baselineUrl = `${base}/bench/baseline/${index}`
      const [a, b] = await Promise.all([fetch(obolUrl, { headers }), fetch(baselineUrl, { headers })])
      assert.equal(a.status, 200, `${c.name}: Obol answered ${a.status}: ${await a.clone().text()}`)
      assert.deepEqual(
        c.same((await a.json()) as Answer),
        c.same((await b.json()) as Answer),
        `${c.name}: both sides must answer alike`,
      )
      const settings = c.scan
        ? { durationSec: scanDurationSec, connections: scanConnections, timeoutSec: 120 }
        : { durationSec, connections }
      const [obol, hand] = await loadAlternating([obolUrl, baselineUrl], { headers, rounds, ...settings })
      const row = formatRow(c.name, obol, hand)
      results.push(row)
      process.stdout.write(`${row}\n`)
    }
    if (replica) {
      const metrics = await (await fetch(`${base}/metrics`)).text()
      const reads = metrics.split('\n').filter((line) => line.startsWith('obol_db_reads_total'))
      results.push(`  ${reads.join(', ')}`)
    }
  } finally {
    await app.server.close()
    await database.close()
  }
  return results
}

async function untilReplicaUp(base: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ready = (await (await fetch(`${base}/health/ready`)).json()) as { replicas?: { state: string }[] }
    if (ready.replicas?.[0]?.state === 'UP') return
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error('the replica did not come up')
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
