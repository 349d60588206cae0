import { systemCaller } from '../src/kernel/caller.ts'
import { createOutbox } from '../src/kernel/events/index.ts'
/**
 * Prepaid reservation benchmark, on a PostgreSQL server: reserve + confirm pairs per second with 32 connections, on
 * 1,000 wallets (each pair picks one at random, one unit a line: free counter units), on one hot wallet (every pair
 * on it: its free units go in the first second, then paid), and paid on 1,000 wallets (150 units a line), beside
 * `pgbench -b tpcb-like` with 32 clients on the same server in the same run. Each pair is two HTTP requests on
 * loopback (`reserveCdr` with a usage line, then `confirmReservation`); the reservations rate a FLAT usage charge
 * with a counter of free units, hold against a prepaid wallet and confirm into a wallet operation.
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_DURATION_SEC (default 10),
 *   BENCH_CONNECTIONS (default 32), BENCH_WALLETS (default 1000), BENCH_POOL (the server's PostgreSQL connections,
 *   default BENCH_CONNECTIONS)
 *
 * The clients run in a worker thread of the server's process (32 async loops on kept-alive `node:http` connections,
 * `reservations-clients.ts`): the server's event loop is its own, but the two share the machine's cores as pgbench's
 * clients share its server's.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import inspector from 'node:inspector/promises'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { Worker } from 'node:worker_threads'
import pg from 'pg'
import pino from 'pino'
import { sql } from 'drizzle-orm'
import { buildApp } from '../src/app.ts'
import { systemClock } from '../src/kernel/clock.ts'
import { loadConfig } from '../src/kernel/config.ts'
import { openPostgres, type Db } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { JobRuntime } from '../src/kernel/jobs/job-runtime.ts'
import { seedAccountsDemo } from '../src/modules/accounts/demo-data.ts'
import { createCatalogModule } from '../src/modules/catalog/index.ts'
import { seedCatalogDemo } from '../src/modules/catalog/demo-data.ts'
import type { ClientsResult, ClientsTask } from './reservations-clients.ts'
import { printStatements } from './statements.ts'

const run = promisify(execFile)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const durationSec = Number(process.env.BENCH_DURATION_SEC ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32)
const walletCount = Number(process.env.BENCH_WALLETS ?? 1000)
const SECRET = 'bench-admin-secret-0123456789'
const DEMO = 'bench'

/** A usage charge (FLAT 0.01, 100 free units a month) in a product sold by BOF_USAGE. */
async function buildCatalog(db: Db): Promise<void> {
  const catalog = createCatalogModule({
    db,
    actorOf: () => ({ username: DEMO }),
    outbox: createOutbox({ clock: systemClock }),
  })
  await db.execute(sql`insert into counter_template (code, description, calendar_id, ceiling, creator)
    select 'BCT_FREE', '100 free units a month', id, 100, ${DEMO} from calendar where code = 'MONTHLY'`)
  await catalog.charges.create(
    {
      code: 'BCH_USAGE',
      type: 'USAGE',
      invoiceSubCategory: 'SUB_USAGE',
      taxClass: 'NORMAL',
      counterTemplate: 'BCT_FREE',
      description: 'Usage',
    },
    DEMO,
  )
  await catalog.pricing.saveDraft(
    'BCH_USAGE',
    { pricingModel: 'FLAT', currency: 'EUR', validFrom: '2020-01-01', price: '0.01' },
    DEMO,
  )
  await catalog.pricing.publish('BCH_USAGE', DEMO)
  await catalog.records.products.create({ code: 'BPR_USAGE', name: 'Usage product' }, { username: DEMO })
  await catalog.products.createVersion('BPR_USAGE', { validFrom: '2020-01-01' }, DEMO)
  await catalog.products.linkCharge('BPR_USAGE', 1, 'BCH_USAGE')
  await catalog.products.publish('BPR_USAGE', 1, DEMO)
  await catalog.offers.create(
    { code: 'BOF_USAGE', lifeCycleStatus: 'ACTIVE', offerComponents: [{ productCode: 'BPR_USAGE' }] },
    systemCaller(DEMO),
  )
}

/**
 * `count` user accounts BUA_<n>, each with a subscription BSUB_<n> copied from the placed template (its usage charge
 * instance included) and a PREPAID wallet credited through the ledger.
 */
async function cloneAccounts(db: Db, template: string, count: number): Promise<void> {
  await db.execute(sql`insert into user_account (code, billing_account_id, creator)
    select 'BUA_' || g, ua.billing_account_id, 'bench' from subscription s join user_account ua on ua.id = s.user_account_id
      cross join generate_series(1, ${count}) g where s.code = ${template}`)
  await db.execute(sql`insert into subscription (code, status, subscription_date, offer_template_id, seller_id,
      user_account_id, order_id, activation_date, creator)
    select 'BSUB_' || g, s.status, s.subscription_date, s.offer_template_id, s.seller_id,
      (select id from user_account where code = 'BUA_' || g), s.order_id, s.activation_date, 'bench'
    from subscription s cross join generate_series(1, ${count}) g where s.code = ${template}`)
  await db.execute(sql`insert into charge_instance (code, description, status, charge_id, charge_type, subscription_id,
      wallet_id, quantity, subscription_date, creator)
    select ci.code, ci.description, ci.status, ci.charge_id, ci.charge_type, ns.id, ci.wallet_id, ci.quantity,
      ci.subscription_date, 'bench'
    from charge_instance ci join subscription s on s.id = ci.subscription_id
      join subscription ns on ns.code like 'BSUB\\_%'
    where s.code = ${template} and ci.charge_type = 'USAGE'`)
  await db.execute(sql`insert into wallet (code, user_account_id, wallet_type, principal, creator)
    select 'PP', id, 'PREPAID', false, 'bench' from user_account where code like 'BUA\\_%'`)
  await db.execute(sql`insert into balance_ledger (entry_type, wallet_id, balance_delta, reference, creator)
    select 'CREDIT', w.id, 1000000, 'bench', 'bench' from wallet w join user_account ua on ua.id = w.user_account_id
    where ua.code like 'BUA\\_%' and w.wallet_type = 'PREPAID'`)
  await db.execute(sql`update wallet w set balance = 1000000 from user_account ua
    where ua.id = w.user_account_id and ua.code like 'BUA\\_%' and w.wallet_type = 'PREPAID'`)
  await db.execute(sql`analyze`)
}

/** pgbench's tpcb-like transactions per second with the same number of clients, on its own database. */
async function pgbench(name: string): Promise<number> {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  await run('pgbench', ['-i', '-q', '-s', '10', url.toString()])
  const { stdout } = await run('pgbench', [
    '-b',
    'tpcb-like',
    '-n',
    '-c',
    String(connections),
    '-j',
    '2',
    '-T',
    String(durationSec),
    url.toString(),
  ])
  const tps = /tps = ([\d.]+)/.exec(stdout)
  assert.ok(tps, `pgbench printed no tps:\n${stdout}`)
  return Number(tps[1])
}

/** A CPU profile of this process from now until the returned function writes it (`BENCH_CPU_PROFILE=<file>`). */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const session = new inspector.Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  return async (file) => {
    const { profile } = await session.post('Profiler.stop')
    await writeFile(file, JSON.stringify(profile))
    session.disconnect()
  }
}

async function main(): Promise<void> {
  const name = `obol_bench_reservations_${process.pid}`
  const pgbenchName = `obol_bench_pgbench_${process.pid}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.query(`create database ${pgbenchName}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const database = openPostgres(url.toString(), { max: Number(process.env.BENCH_POOL ?? connections) })
  try {
    await migrate(database.db)
    await seedAccountsDemo(database.db)
    await seedCatalogDemo(database.db)
    await buildCatalog(database.db)

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
    const auth = { authorization: `Bearer ${token}` }
    const placed = await fetch(`${base}/api/v1/orders?autoValidate=true`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        orderType: 'NEW',
        sellerCode: 'MAIN',
        billingAccountCode: 'BA_001',
        userAccountCode: 'UA_001',
        orderOffers: [
          {
            subscriptionCode: 'BENCH_TEMPLATE',
            offerTemplateCode: 'BOF_USAGE',
            subscriptionDate: '2026-01-01',
            orderProducts: [{ productCode: 'BPR_USAGE' }],
          },
        ],
      }),
    })
    assert.equal(placed.status, 201, await placed.clone().text())
    await cloneAccounts(database.db, 'BENCH_TEMPLATE', walletCount)

    const usageTime = new Date().toISOString().slice(0, 19)
    /** 32 loops of reserve + confirm for `seconds`, in a worker thread (`reservations-clients.ts`). */
    const pairs = async (mode: ClientsTask['mode'], quantity = 1, seconds = durationSec) => {
      const task: ClientsTask = { base, token, usageTime, connections, seconds, wallets: walletCount, mode, quantity }
      const cpuBefore = process.cpuUsage()
      const result = await new Promise<ClientsResult>((resolve, reject) => {
        const worker = new Worker(new URL('./reservations-clients.ts', import.meta.url), { workerData: task })
        worker.once('message', resolve)
        worker.once('error', reject)
      })
      const cpu = process.cpuUsage(cpuBefore)
      const latencies = [...result.latencies].sort((a, b) => a - b)
      return {
        perSec: result.pairs / seconds,
        p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
        p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
        // The process's CPU (server and client threads) per pair.
        cpuMsPerPair: (cpu.user + cpu.system) / 1000 / Math.max(1, result.pairs),
      }
    }
    await pairs('many', 1, 2) // warm-up, not counted
    if (process.env.BENCH_STATEMENTS === '1') {
      // Statements per request: one reserve and one confirm alone.
      let reservationId = 0
      await printStatements('reserve', async () => {
        const reserved = await fetch(`${base}/api/rest/billing/mediation/reserveCdr`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/plain' },
          body: `${usageTime};BSUB_7;1;U;bench`,
        })
        reservationId = ((await reserved.json()) as { reservationId: number }).reservationId
      })
      await printStatements('confirm', () =>
        fetch(`${base}/api/rest/billing/mediation/confirmReservation`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ reservationId }),
        }),
      )
    }
    const profile = process.env.BENCH_CPU_PROFILE ? await startProfile() : undefined
    const many = await pairs('many')
    if (profile && process.env.BENCH_CPU_PROFILE) await profile(process.env.BENCH_CPU_PROFILE)
    const hot = await pairs('hot')
    // 150 units a line: a subscription's first pair uses up its 100 free units, every later one is paid.
    const paid = await pairs('many', 150)
    await app.server.close()
    const tps = await pgbench(pgbenchName)
    const row = (label: string, r: { perSec: number; p50: number; p99: number; cpuMsPerPair: number }) =>
      `  ${label.padEnd(30)} ${r.perSec.toFixed(0).padStart(6)} pairs/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms  CPU ${r.cpuMsPerPair.toFixed(1)} ms/pair`
    const lines = [
      '',
      `Prepaid reservations, ${durationSec} s per run, ${connections} connections (PostgreSQL, HTTP on loopback):`,
      row(`reserve+confirm, ${walletCount} wallets`, many),
      row('reserve+confirm, one hot wallet', hot),
      row(`paid, ${walletCount} wallets`, paid),
      `  pgbench -b tpcb-like -c ${connections}        ${tps.toFixed(0).padStart(6)} tps`,
      `  ratio, ${walletCount} wallets / pgbench: ${(many.perSec / tps).toFixed(2)} (target >= 0.15)`,
      `  ratio, hot wallet / pgbench:  ${(hot.perSec / tps).toFixed(2)}`,
      `  ratio, paid on ${walletCount} wallets / pgbench:  ${(paid.perSec / tps).toFixed(2)}`,
    ]
    process.stdout.write(`${lines.join('\n')}\n`)
  } finally {
    await database.close()
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.query(`drop database if exists ${pgbenchName} with (force)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
