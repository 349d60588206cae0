/**
 * Expert dispatch benchmark ("one shape round two", item 3): what Expert runs pay for going through the job
 * runtime's queue (pg-boss, `JobRuntime.defineQueue`/`send` inside the submitting transaction). On one store
 * (BENCH_STORE=pglite, the default: in memory; or postgres), with the app built as `obol start` builds it (role all):
 *
 * 1. A short Expert run (`select 1`): POST execute, then its record polled every millisecond until it ends;
 *    BENCH_ROUNDS runs (default 30), submit to end, p50 / p95 / max.
 * 2. A queue as Expert's (woken at commit, BENCH_WAKE=0 to poll instead): a message sent in a transaction, from its
 *    commit to its handler's start; as many rounds, each after a random pause (0-500 ms) so that sends fall anywhere
 *    in the workers' polling period. p50 / p95 / max.
 * 3. Runs at once on one instance: 8 messages sent together on that queue (BENCH_CONCURRENCY handlers at once,
 *    default 8, Expert's on a server), each holding 200 ms; the time until the last one started.
 *
 *   BENCH_DATABASE_URL (postgres; default postgres://postgres@127.0.0.1:5432/test): only its server is used; the
 *     database is obol_bench_dispatch_<pid>, dropped at the end.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import pino from 'pino'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { openPglite, openPostgres, type Database } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'

const store = process.env.BENCH_STORE ?? 'pglite'
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const rounds = Number(process.env.BENCH_ROUNDS ?? 30)
const SECRET = 'bench-admin-secret-0123456789'
const QUEUE = 'bench-expert-dispatch'

const say = (line: string) => process.stdout.write(`${line}\n`)

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1)
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms (${ms.length} runs)`
}

async function main(): Promise<void> {
  let database: Database
  let drop: (() => Promise<void>) | undefined
  if (store === 'postgres') {
    const name = `obol_bench_dispatch_${process.pid}`
    const admin = new pg.Client({ connectionString: serverUrl })
    await admin.connect()
    await admin.query(`create database ${name}`)
    const url = Object.assign(new URL(serverUrl), { pathname: `/${name}` }).href
    database = openPostgres(url, { max: 10 })
    drop = async () => {
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
    }
  } else {
    database = await openPglite()
  }
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-bench-dispatch-'))
  const jobs = new JobRuntime({
    database,
    clock: systemClock,
    log: pino({ level: 'silent' }),
    heartbeatIntervalMs: 1000,
    instanceStaleAfterMs: 30_000,
    timerPollIntervalMs: 1000,
    worker: true,
    roles: 'all',
  })
  const started = new Map<number, number>()
  let holdMs = 0
  jobs.defineQueue<{ round: number }>({
    name: QUEUE,
    wakeAtCommit: process.env.BENCH_WAKE !== '0',
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
    async handle(data) {
      started.set(data.round, performance.now())
      if (holdMs) await delay(holdMs)
    },
  })
  try {
    await migrate(database.db)
    await jobs.start()
    const config = loadConfig({ OBOL_ADMIN_CLIENT_SECRET: SECRET, LOG_LEVEL: 'silent' })
    const app = await buildApp({
      database,
      clock: systemClock,
      jobs,
      publicUrl: 'http://127.0.0.1',
      auth: config.auth,
      exportDir,
    })
    const token = (
      await app.server.inject({
        method: 'POST',
        url: '/auth/realms/obol/protocol/openid-connect/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: 'obol-admin',
          client_secret: SECRET,
        }).toString(),
      })
    ).json<{ access_token: string }>().access_token
    const headers = { authorization: `Bearer ${token}` }
    // The governor's per-minute slots would refuse a fast series: raised for the run.
    const raised = await app.server.inject({
      method: 'PUT',
      url: '/api/v1/tenantSettings',
      headers,
      payload: { workbench: { governor: { maxQueriesPerMinutePerUser: 10_000 } } },
    })
    assert.equal(raised.statusCode, 200, raised.body)

    say(`Store: ${store}`)
    const expert: number[] = []
    for (let round = 0; round < rounds; round++) {
      const begun = performance.now()
      const submitted = await app.server.inject({
        method: 'POST',
        url: '/api/v1/workbench/expert/execute',
        headers,
        payload: { query: 'select 1 as one' },
      })
      assert.equal(submitted.statusCode, 200, submitted.body)
      const id = submitted.json<{ queryExecutionResultId: number }>().queryExecutionResultId
      for (;;) {
        const run = (
          await app.server.inject({ method: 'GET', url: `/api/v1/workbench/expert/executions/${id}`, headers })
        ).json<{ endDate: string | null; status: string }>()
        if (run.endDate !== null) {
          assert.equal(run.status, 'SUCCESS')
          break
        }
        await delay(1)
      }
      expert.push(performance.now() - begun)
    }
    say(`1. short Expert run, submit to end: ${summary(expert)}`)

    const queued: number[] = []
    for (let round = 0; round < rounds; round++) {
      await delay(Math.random() * 500)
      await database.db.transaction((tx) => jobs.send(tx, QUEUE, { round }))
      const committed = performance.now()
      while (!started.has(round)) await delay(1)
      queued.push(started.get(round)! - committed)
    }
    say(`2. a queue as Expert's, commit to handler start: ${summary(queued)}`)

    holdMs = 200
    const first = 1_000_000
    const sentAt = performance.now()
    await database.db.transaction(async (tx) => {
      for (let i = 0; i < 8; i++) await jobs.send(tx, QUEUE, { round: first + i })
    })
    while (started.size < rounds + 8) await delay(1)
    const lastStart = Math.max(...Array.from({ length: 8 }, (_, i) => started.get(first + i)!)) - sentAt
    say(`3. 8 queued runs of 200 ms sent together: the last started after ${lastStart.toFixed(0)} ms`)
    await app.server.close()
  } finally {
    await jobs.stop(1000)
    await database.close()
    await drop?.()
    fs.rmSync(exportDir, { recursive: true, force: true })
  }
}

await main()
