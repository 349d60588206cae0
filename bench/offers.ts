/**
 * Offers bulk benchmark (issue 16), on a PostgreSQL server: a bulk of N creates (`POST /v1/catalog/offers/bulk`)
 * against the same N offers created by N single calls (`POST /v1/catalog/offers`), over HTTP on loopback, one call
 * at a time and BENCH_CONNECTIONS at a time. Each offer links a product, a seller and a category, so every operation
 * runs the same validation and writes as a single call. Rounds alternate (bulk, singles, singles, bulk, ...) so that a
 * slow spell of the machine weighs on both; the figures are the medians of BENCH_ROUNDS rounds of each.
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_OPERATIONS (default 100),
 *   BENCH_ROUNDS (default 6), BENCH_CONNECTIONS (default 10)
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import pino from 'pino'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { openPostgres } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'
import { seedAccountsDemo } from '../src/modules/accounts/demo-data.ts'
import { seedCatalogDemo } from '../src/modules/catalog/demo-data.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const operations = Number(process.env.BENCH_OPERATIONS ?? 100)
const rounds = Number(process.env.BENCH_ROUNDS ?? 6)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const SECRET = 'bench-admin-secret-0123456789'

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main(): Promise<void> {
  const name = `obol_bench_offers_${process.pid}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const database = openPostgres(url.toString(), { max: 20 })
  try {
    await migrate(database.db)
    await seedAccountsDemo(database.db)
    await seedCatalogDemo(database.db)
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
    const app = await buildApp({ database, clock: systemClock, jobs, publicUrl: 'http://127.0.0.1', auth: config.auth })
    await app.server.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`
    const tokenResponse = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: SECRET }),
    })
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const category = await post('/api/v1/offerTemplateCategories', { code: 'BENCH_CAT', name: 'Bench' })
    assert.equal(category.status, 201, await category.text())
    const offer = (code: string) => ({
      code,
      name: `Offer ${code}`,
      product_codes: ['PR_INTERNET'],
      seller_codes: ['MAIN'],
      category_codes: ['BENCH_CAT'],
      attributes: { speed: 1000 },
    })
    const codes = (round: string) => Array.from({ length: operations }, (_v, i) => `BENCH_${round}_${i}`)

    async function bulk(round: string): Promise<number> {
      const t0 = performance.now()
      const response = await post('/v1/catalog/offers/bulk', {
        operations: codes(round).map((code) => ({ action: 'create', body: offer(code) })),
      })
      const results = ((await response.json()) as { results: { status: number }[] }).results
      const ms = performance.now() - t0
      assert.equal(response.status, 200)
      assert.ok(results.every((r) => r.status === 201))
      return ms
    }

    async function singles(round: string, parallel: number): Promise<number> {
      const queue = codes(round)
      const t0 = performance.now()
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          for (let code = queue.shift(); code !== undefined; code = queue.shift()) {
            const response = await post('/v1/catalog/offers', offer(code))
            const text = await response.text()
            assert.equal(response.status, 201, text)
          }
        }),
      )
      return performance.now() - t0
    }

    await bulk('WARM_B')
    await singles('WARM_S', connections)
    const times = { bulk: [] as number[], sequential: [] as number[], concurrent: [] as number[] }
    for (let r = 0; r < rounds; r++) {
      const bulkFirst = r % 2 === 0
      if (bulkFirst) times.bulk.push(await bulk(`B${r}`))
      times.sequential.push(await singles(`S${r}`, 1))
      times.concurrent.push(await singles(`C${r}`, connections))
      if (!bulkFirst) times.bulk.push(await bulk(`B${r}`))
    }
    await app.server.close()
    const [b, s, c] = [median(times.bulk), median(times.sequential), median(times.concurrent)]
    const lines = [
      `${operations} offer creates, median of ${rounds} rounds (PostgreSQL, HTTP on loopback):`,
      `  one bulk request                       ${b.toFixed(0).padStart(6)} ms`,
      `  single calls, one at a time            ${s.toFixed(0).padStart(6)} ms   bulk is ${(s / b).toFixed(2)}x faster`,
      `  single calls, ${String(connections).padEnd(2)} at a time           ${c.toFixed(0).padStart(6)} ms   bulk is ${(c / b).toFixed(2)}x faster`,
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  } finally {
    await database.close()
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
