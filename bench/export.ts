/**
 * Expert export benchmark (issue 15, item 9), on a PostgreSQL server: 1,000,000 wallet operations written to CSV
 * through Expert mode (POST execute, poll the record until it ends) against `psql -c "\copy (same statement) to
 * file csv header"` in the same run, alternating, BENCH_ROUNDS rounds each (default 3). The row limits are raised
 * to 1,000,000 for the run. Prints rows/s of both, their ratio (best round of each), and the peak growth of this
 * process's resident memory (the server runs in it) while Expert runs; checks that both files are byte-identical.
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_ROWS (default 1000000),
 *   BENCH_ROUNDS (default 3), BENCH_DETAIL (print the memory breakdown at each run's peak), BENCH_SKIP_PSQL (after
 *   the first round, Expert only)
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import pg from 'pg'
import pino from 'pino'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { openPostgres } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const rowCount = Number(process.env.BENCH_ROWS ?? 1_000_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const SECRET = 'bench-admin-secret-0123456789'
// Ordered: a large table's sequential scans may start mid-table (synchronized scans), and the files are compared.
const QUERY = 'select * from wallet_operation order by id'
const STATEMENT = `${QUERY}\nLIMIT ${rowCount}`

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex')

async function main(): Promise<void> {
  const name = `obol_bench_export_${process.pid}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const database = openPostgres(url.toString(), { max: 10 })
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-bench-export-'))
  try {
    await migrate(database.db)
    process.stdout.write(`Generating ${rowCount.toLocaleString('en')} wallet operations...\n`)
    const filler = new pg.Client({ connectionString: url.toString() })
    await filler.connect()
    // Only the export is measured: the rows' references are not needed, so their checks are skipped while filling.
    await filler.query('set session_replication_role = replica')
    await filler.query(`insert into wallet_operation (code, status, charge_type, operation_date, quantity,
        unit_amount_without_tax, amount_without_tax, amount_tax, amount_with_tax, tax_percent, tax_id,
        accounting_article_id, currency_id, wallet_id, charge_instance_id, subscription_id, billing_account_id,
        seller_id, description, created)
      select 'WO_' || n, 'OPEN', 'RECURRING', date '2026-01-01' + (n % 365), 1 + n % 7, 12.5 + n % 100,
        (12.5 + n % 100) * (1 + n % 7), 2.5, (12.5 + n % 100) * (1 + n % 7) + 2.5, 20, 1, 1, 1, 1 + n % 1000,
        1 + n % 5000, 1 + n % 2000, 1 + n % 1000, 1, 'Subscription fee, period ' || n % 12,
        timestamptz '2026-01-01 00:00:00Z' + n * interval '1 second'
      from generate_series(1, ${rowCount}) as n`)
    await filler.query('vacuum analyze wallet_operation')
    await filler.query(
      `update tenant_setting set governor_max_rows_sync = ${rowCount}, governor_max_rows_async = ${rowCount}`,
    )
    await filler.end()

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
      exportDir,
    })
    await app.server.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`
    const tokenResponse = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: SECRET }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }

    const baselineFile = path.join(exportDir, 'psql.csv')
    async function baseline(): Promise<number> {
      const started = performance.now()
      if (process.env.BENCH_SKIP_PSQL && fs.existsSync(baselineFile)) return Infinity
      execFileSync('psql', [
        url.toString(),
        '-q',
        '-c',
        `\\copy (${STATEMENT.replace('\n', ' ')}) to '${baselineFile}' csv header`,
      ])
      return performance.now() - started
    }

    let peakGrowth = 0
    let lastGrowth = 0
    async function expert(): Promise<{ ms: number; file: string; lineCount: number }> {
      global.gc?.()
      const rssBefore = process.memoryUsage().rss
      let peak = rssBefore
      let detail = ''
      const started = performance.now()
      const sampler = setInterval(() => {
        const m = process.memoryUsage()
        if (m.rss > peak && process.env.BENCH_DETAIL)
          detail = `${fs
            .readFileSync('/proc/self/status', 'utf8')
            .split('\n')
            .filter((l) => l.startsWith('Rss'))
            .join(' ')
            .replace(
              /\s+/g,
              ' ',
            )} t=${(performance.now() - started).toFixed(0)}ms heapTotal ${(m.heapTotal / 1048576).toFixed(0)} external ${(m.external / 1048576).toFixed(0)} arrayBuffers ${(m.arrayBuffers / 1048576).toFixed(0)}`
        peak = Math.max(peak, m.rss)
      }, 10)
      const submitted = await fetch(`${base}/api/v1/workbench/expert/execute`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: QUERY, format: 'CSV' }),
      })
      assert.equal(submitted.status, 200, await submitted.clone().text())
      const { queryExecutionResultId: id } = (await submitted.json()) as { queryExecutionResultId: number }
      let run: { endDate: string | null; status: string; filePath: string; lineCount: number }
      for (;;) {
        const res = await fetch(`${base}/api/v1/workbench/expert/executions/${id}`, { headers })
        run = (await res.json()) as typeof run
        if (run.endDate !== null) break
        await delay(10)
      }
      const ms = performance.now() - started
      clearInterval(sampler)
      peakGrowth = Math.max(peakGrowth, peak - rssBefore)
      lastGrowth = peak - rssBefore
      if (detail) process.stdout.write(`  at the peak: ${detail} MiB\n`)
      assert.equal(run.status, 'SUCCESS')
      return { ms, file: run.filePath, lineCount: run.lineCount }
    }

    const expertTimes: number[] = []
    const baselineTimes: number[] = []
    let lastExpert = ''
    for (let round = 0; round < rounds; round++) {
      baselineTimes.push(await baseline())
      const run = await expert()
      assert.equal(run.lineCount, rowCount)
      expertTimes.push(run.ms)
      lastExpert = run.file
      process.stdout.write(
        `round ${round + 1}: psql \\copy ${(baselineTimes.at(-1)! / 1000).toFixed(2)} s, Expert ${(run.ms / 1000).toFixed(2)} s (RSS +${(lastGrowth / 1048576).toFixed(1)} MiB)\n`,
      )
    }
    assert.equal(sha256(lastExpert), sha256(baselineFile), 'the Expert CSV differs from psql \\copy')
    const best = (times: number[]) => Math.min(...times)
    const expertRate = rowCount / (best(expertTimes) / 1000)
    const baselineRate = rowCount / (best(baselineTimes) / 1000)
    const size = fs.statSync(lastExpert).size
    process.stdout.write(
      [
        `rows: ${rowCount.toLocaleString('en')}, file: ${(size / 1024 / 1024).toFixed(1)} MiB, identical to psql's`,
        `psql \\copy: ${Math.round(baselineRate).toLocaleString('en')} rows/s (best of ${rounds})`,
        `Expert:     ${Math.round(expertRate).toLocaleString('en')} rows/s (best of ${rounds}, submit to end seen by polling)`,
        `ratio: ${(expertRate / baselineRate).toFixed(2)} (target >= 0.8)`,
        `peak RSS growth during an Expert run: ${(peakGrowth / 1024 / 1024).toFixed(1)} MiB (target < 50)`,
        '',
      ].join('\n'),
    )
    await app.server.close()
  } finally {
    await database.close()
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
    fs.rmSync(exportDir, { recursive: true, force: true })
  }
}

await main()
