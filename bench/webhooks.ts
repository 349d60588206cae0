/**
 * Webhooks benchmark (issue 40, item 6), on a PostgreSQL server, with real `obol start` processes (the built server,
 * `npm start`'s settings) and a receiver process that checks every signature with the `standardwebhooks` package:
 *
 * 1. Throughput: BENCH_EVENTS wallet credits (default 20,000) are made through the API of an `--role api` instance
 *    (no dispatcher: the deliveries wait), then a `--role worker` instance delivers them. Its rate (events delivered
 *    a second, first arrival to last) is printed against the same receiver fed by a bare loop of signed POSTs — the
 *    same bodies, signed the same way, a new connection each as the dispatcher does, as many at once as it sends at
 *    most (200) — in the same run. Goal: ratio >= 0.5.
 * 2. Delay: with the worker running, credits at BENCH_RATE a second (default 200) for BENCH_SECONDS (default 10);
 *    the delay from each event's `occurredAt` (written in the change's transaction, just before its commit) to its
 *    arrival, p50 and p99.
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test): only its server is used; the database is
 *     obol_bench_webhooks_<pid>, dropped at the end.
 */
import assert from 'node:assert/strict'
import { fork, spawnSync, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import path from 'node:path'
import pg from 'pg'
import { sql } from 'drizzle-orm'
import { openPostgres, rows } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { signatureHeader } from '../src/modules/webhooks/signing.ts'
import { seedDemo } from '../src/seed.ts'
import { adminToken, ROOT, spawnObol, type ObolProcess } from './server.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const eventCount = Number(process.env.BENCH_EVENTS ?? 20_000)
const rate = Number(process.env.BENCH_RATE ?? 200)
const delaySeconds = Number(process.env.BENCH_SECONDS ?? 10)
const SECRET = 'bench-admin-secret-0123456789'
/** The most attempts the dispatcher has under way (dispatcher.ts): the bare loop sends as many at once. */
const IN_FLIGHT = 200
const WALLETS = 50

const urlOf = (database: string) => Object.assign(new URL(serverUrl), { pathname: `/${database}` }).href
const say = (line: string) => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Stats {
  requests: number
  refused: number
  distinct: number
  first: number
  last: number
  delays: number[]
  bodies?: string[]
}

/** The receiver process and a way to ask it. */
async function startReceiver(): Promise<{
  port: number
  ask: (message: unknown) => Promise<any>
  child: ChildProcess
}> {
  const child = fork(path.join(ROOT, 'bench', 'webhook-receiver.ts'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let waiting: ((value: unknown) => void) | undefined
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m) => resolve((m as { port: number }).port)),
  )
  child.on('message', (m) => {
    const done = waiting
    waiting = undefined
    done?.(m)
  })
  const ask = (message: unknown) =>
    new Promise<any>((resolve) => {
      waiting = resolve
      child.send(message as string)
    })
  return { port, ask, child }
}

/** Runs `work` on `items` with at most `limit` under way. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]!)
    }),
  )
}

/** One signed POST as the dispatcher sends it: a connection of its own, the Standard Webhooks headers. */
function post(port: number, id: string, secret: string, body: string): Promise<number> {
  const timestamp = Math.floor(Date.now() / 1000)
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/hook',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader([secret], id, timestamp, body),
        },
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function main(): Promise<void> {
  const started = performance.now()
  const built = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'build.js')], { stdio: 'inherit' })
  assert.equal(built.status, 0, 'bin/build.js failed')
  const admin = new pg.Client({ connectionString: urlOf('postgres') })
  await admin.connect()
  const database = `obol_bench_webhooks_${process.pid}`
  await admin.query(`create database ${database}`)
  const servers: ObolProcess[] = []
  const receiver = await startReceiver()
  try {
    const opened = openPostgres(urlOf(database), { max: 2 })
    await migrate(opened.db)
    await seedDemo(opened.db)
    const accounts = (
      await rows<{ code: string }>(opened.db, sql`select code from user_account order by code limit ${WALLETS}`)
    ).map((r) => r.code)
    await opened.close()
    const env = { WEBHOOK_PRIVATE_TARGETS: 'allow' }
    const port = 18_700 + (process.pid % 500)
    const api = await spawnObol(urlOf(database), { port, secret: SECRET, args: ['--role', 'api'], env })
    servers.push(api)
    const token = await adminToken(api.base, SECRET)
    const call = async (method: string, route: string, body?: unknown) => {
      const response = await fetch(`${api.base}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      assert.ok(response.ok, `${method} ${route} answered ${response.status}: ${text}`)
      return text ? JSON.parse(text) : undefined
    }
    for (const account of accounts) {
      await call('POST', `/api/v1/userAccounts/${account}/wallets`, { code: 'BENCH', walletType: 'PREPAID' })
    }
    const endpoint = await call('POST', '/api/v1/webhookEndpoints', {
      url: `http://127.0.0.1:${receiver.port}/hook`,
      eventTypes: ['wallet.credited'],
    })
    await receiver.ask({ secret: endpoint.secret })
    const credit = (n: number) =>
      call('POST', `/api/v1/userAccounts/${accounts[n % accounts.length]}/wallets/BENCH/credits`, { amount: '1.00' })

    say(
      `Making ${eventCount.toLocaleString('en-US')} wallet credits through an --role api instance (nothing delivers them yet)...`,
    )
    const made = performance.now()
    await pool(
      Array.from({ length: eventCount }, (_, i) => i),
      32,
      (i) => credit(i),
    )
    say(`  ${((eventCount / (performance.now() - made)) * 1000).toFixed(0)} credits/s`)
    await sleep(1000)
    assert.equal((await receiver.ask('stats')).distinct, 0, 'an api instance delivers nothing')

    say('Delivering them with an --role worker instance...')
    const worker = await spawnObol(urlOf(database), {
      port: port + 1,
      secret: SECRET,
      args: ['--role', 'worker'],
      env,
      // BENCH_PROFILE=<dir>: the worker's CPU profile, written there when it stops.
      nodeFlags: process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [],
    })
    servers.push(worker)
    let obol: Stats
    for (const deadline = Date.now() + 600_000; ;) {
      obol = await receiver.ask('bodies')
      if (obol.distinct >= eventCount) break
      assert.ok(Date.now() < deadline, `only ${obol.distinct} events arrived in 10 minutes`)
      await sleep(250)
    }
    assert.equal(obol.refused, 0, 'every signature verifies')
    const obolRate = ((obol.distinct - 1) / (obol.last - obol.first)) * 1000

    // The delay at a steady rate, the worker running.
    await receiver.ask('reset')
    const total = rate * delaySeconds
    say(`Delay: ${total.toLocaleString('en-US')} credits at ${rate}/s...`)
    const calls: Promise<unknown>[] = []
    const tick = 50
    const began = performance.now()
    for (let sent = 0; sent < total;) {
      const due = Math.min(total, Math.floor(((performance.now() - began) / 1000) * rate))
      for (; sent < due; sent += 1) calls.push(credit(sent))
      await sleep(tick)
    }
    await Promise.all(calls)
    let steady: Stats
    for (const deadline = Date.now() + 120_000; ;) {
      steady = await receiver.ask('stats')
      if (steady.distinct >= total) break
      assert.ok(Date.now() < deadline, `only ${steady.distinct} of ${total} arrived`)
      await sleep(250)
    }
    const delays = [...steady.delays].sort((a, b) => a - b)

    // The bare loop: the same bodies, signed and posted to the same receiver, new ids.
    await receiver.ask('reset')
    const bodies = obol.bodies!
    await pool(
      bodies.map((body, i) => ({ body, id: `bare_${i}` })),
      IN_FLIGHT,
      async ({ body, id }) => {
        assert.equal(await post(receiver.port, id, endpoint.secret as string, body), 204)
      },
    )
    const bare: Stats = await receiver.ask('stats')
    assert.equal(bare.distinct, bodies.length)
    const bareRate = ((bare.distinct - 1) / (bare.last - bare.first)) * 1000

    say(
      [
        '',
        `Webhooks (PostgreSQL; receiver checking every signature with the standardwebhooks package):`,
        `  ${obol.distinct.toLocaleString('en-US')} events delivered by one worker instance   ${obolRate.toFixed(0).padStart(6)} events/s (${obol.requests - obol.distinct} sent twice)`,
        `  bare loop of signed POSTs, ${IN_FLIGHT} at once          ${bareRate.toFixed(0).padStart(6)} events/s`,
        `  ratio Obol / bare loop: ${(obolRate / bareRate).toFixed(2)} (goal >= 0.5)`,
        `  delay from commit to delivery at ${rate} events/s: p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms (${delays.length} events)`,
        `  whole benchmark: ${((performance.now() - started) / 1000).toFixed(0)} s`,
      ].join('\n'),
    )
  } catch (error) {
    for (const server of servers) say(`--- server output:\n${server.output().slice(-4000)}`)
    throw error
  } finally {
    for (const server of servers.reverse()) await server.stop()
    receiver.child.kill()
    await admin.query(`drop database if exists ${database} with (force)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
