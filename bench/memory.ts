/**
 * Memory benchmark (issue 26): the resident memory of a real `obol start --demo` process, at rest and under load.
 *
 * For each configuration the server is started as its own process on a fresh database, given 5 s at rest, then
 * driven in rounds; each round runs a Query API list, the same list with a raw SQL filter (PostgreSQL's parser,
 * libpg-query's WebAssembly) and then an order preview of the demo catalog, each with BENCH_CONNECTIONS connections
 * for BENCH_DURATION_SEC seconds (autocannon in a child process). The resident set (VmRSS of the server's pid) is
 * read at rest and after every round, its peak (VmHWM) at rest and at the end; /metrics gives the V8 heap and the
 * memory outside it.
 *
 * Configurations, measured in the same run:
 * - `npm start`: what `npm start` runs (the built server, dist/cli.js, with the V8 settings of the start script);
 * - `sources`: the baseline, the TypeScript sources on Node's type stripping with V8's default settings, as Obol
 *   ran before the build existed. Requests/s of the two side by side show what the settings cost in throughput.
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_DURATION_SEC (default 15),
 *   BENCH_CONNECTIONS (default 50), BENCH_ROUNDS (default 6), BENCH_PGLITE=1 (also measure on embedded PGlite),
 *   BENCH_BASELINE=0 (skip the `sources` run), BENCH_FLAGS (candidate node options to compare, separated by `;`,
 *   each optionally led by environment variables: `MALLOC_ARENA_MAX=2 --max-semi-space-size=8`; BENCH_ROOT=<dir> among
 *   them runs that candidate from another checkout, built beforehand, e.g. main's, to compare with it in the same run;
 *   BENCH_STORE=PostgreSQL or BENCH_STORE=PGlite runs that candidate on one store only)
 */
import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { load, type LoadResult } from './load.ts'
import { adminToken, residentBytes, ROOT, startScript, waitReady } from './server.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const durationSec = Number(process.env.BENCH_DURATION_SEC ?? 15)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const rounds = Number(process.env.BENCH_ROUNDS ?? 6)
const SECRET = 'bench-admin-secret-0123456789'
const MB = 1024 * 1024

interface Configuration {
  name: string
  nodeFlags: string[]
  env: Record<string, string>
}

interface Measured {
  idleRss: number
  roundRss: number[]
  /** The highest resident set so far (VmHWM): at rest (start-up's peak), and at the end (the whole run's). */
  idlePeak: number
  peak: number
  heapUsed: number
  external: number
  /** Seconds spent in garbage collection during the rounds (prom-client's nodejs_gc_duration_seconds). */
  gcSeconds: number
  list: LoadResult[]
  rawSql: LoadResult[]
  preview: LoadResult[]
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return Number(line?.split(' ')[1] ?? NaN)
}

/** Total seconds of garbage collection so far, every kind of collection summed. */
async function gcSeconds(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return text
    .split('\n')
    .filter((l) => l.startsWith('nodejs_gc_duration_seconds_sum'))
    .reduce((sum, l) => sum + Number(l.split(' ')[1]), 0)
}

interface Running {
  configuration: Configuration
  store: string
  child: ChildProcess
  base: string
  /** What the server printed so far. */
  output: () => string
  headers: Record<string, string>
  measured: Measured
}

/** Starts one server as its own process and waits until it answers ready; the caller stops it. */
async function startServer(
  configuration: Configuration,
  store: string,
  database: Record<string, string>,
  port: number,
) {
  const root = configuration.env.BENCH_ROOT ?? ROOT
  // `npm start`'s options may depend on the store (`${DATABASE_URL:+…}`): read for this server's environment.
  const script = configuration.name === 'npm start' ? startScript(database) : undefined
  const child = spawn(
    process.execPath,
    [...(script?.nodeFlags ?? configuration.nodeFlags), path.join(root, 'bin', 'obol.js'), 'start', '--demo'],
    {
      cwd: root,
      env: {
        ...process.env,
        ...database,
        ...(script?.env ?? {}),
        ...configuration.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        OBOL_ADMIN_CLIENT_SECRET: SECRET,
        NODE_OPTIONS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const base = `http://127.0.0.1:${port}`
  const running: Running = {
    configuration,
    store,
    child,
    base,
    output: () => output,
    headers: {},
    measured: {
      idleRss: 0,
      roundRss: [],
      idlePeak: 0,
      peak: 0,
      heapUsed: 0,
      external: 0,
      gcSeconds: 0,
      list: [],
      rawSql: [],
      preview: [],
    },
  }
  await waitReady(base, child, () => output).catch((error: unknown) => {
    child.kill('SIGKILL')
    throw new Error(`${configuration.name} on ${store}: ${error instanceof Error ? error.message : String(error)}`)
  })
  return running
}

async function stopServer(running: Running): Promise<void> {
  if (running.child.exitCode !== null) return
  const exited = new Promise((resolve) => running.child.once('exit', resolve))
  running.child.kill('SIGTERM')
  await exited
}

const listUrl = (base: string) =>
  `${base}/api/v1/query/billingAccount?limit=50&fields=code,name,customerAccount.customer.name&sortBy=code`

/** The list with a raw SQL filter (the admin holds queryExpert): vetted by PostgreSQL's parser, libpg-query. */
const rawSqlUrl = (base: string) =>
  `${listUrl(base)}&filters=${encodeURIComponent(JSON.stringify({ SQL: "a.code like 'BA_0%'" }))}`

/** Reads the resident set at rest, then gets a token and checks both requests answer 200 before any load. */
async function prepare(running: Running): Promise<void> {
  running.measured.idleRss = residentBytes(running.child.pid!)
  running.measured.idlePeak = residentBytes(running.child.pid!, 'VmHWM')
  running.measured.gcSeconds = await gcSeconds(running.base)
  running.headers = { authorization: `Bearer ${await adminToken(running.base, SECRET)}` }
  const check = await fetch(`${running.base}/api/v1/orders/preview`, {
    method: 'POST',
    headers: { ...running.headers, 'content-type': 'application/json' },
    body: JSON.stringify(demoPreview()),
  })
  assert.equal(check.status, 200, `preview answered ${check.status}: ${await check.text()}`)
  for (const url of [listUrl(running.base), rawSqlUrl(running.base)]) {
    const list = await fetch(url, { headers: running.headers })
    assert.equal(
      list.status,
      200,
      `${running.configuration.name} on ${running.store}: the list answered ${list.status}: ${await list.text()}\n${running.output()}`,
    )
  }
}

/** One round on one server: the list, the raw SQL list, then the preview, then its resident set. */
async function round(running: Running): Promise<void> {
  // A new token each round: under a loaded machine the rounds can outlast a token's lifetime.
  running.headers = { authorization: `Bearer ${await adminToken(running.base, SECRET)}` }
  const { base, headers, measured } = running
  measured.list.push(await load(listUrl(base), { headers, durationSec, connections }))
  measured.rawSql.push(await load(rawSqlUrl(base), { headers, durationSec, connections }))
  const body = JSON.stringify(demoPreview())
  measured.preview.push(
    await load(`${base}/api/v1/orders/preview`, { headers, durationSec, connections, method: 'POST', body }),
  )
  measured.roundRss.push(residentBytes(running.child.pid!))
}

async function finish(running: Running): Promise<void> {
  running.measured.peak = residentBytes(running.child.pid!, 'VmHWM')
  running.measured.heapUsed = await metric(running.base, 'nodejs_heap_size_used_bytes')
  running.measured.external = await metric(running.base, 'nodejs_external_memory_bytes')
  running.measured.gcSeconds = (await gcSeconds(running.base)) - running.measured.gcSeconds
}

/** A preview of the demo catalog's internet offer (the demo tenant `obol start --demo` creates). */
function demoPreview() {
  return {
    code: 'BENCH_MEMORY',
    orderType: 'NEW',
    sellerCode: 'MAIN',
    billingAccountCode: 'BA_020',
    userAccountCode: 'UA_020',
    orderOffers: [
      {
        subscriptionCode: 'SUB_BENCH_MEMORY',
        orderLineType: 'CREATE',
        offerTemplateCode: 'OF_INTERNET',
        subscriptionDate: new Date().toISOString().slice(0, 10),
        discountPlanCodes: ['DP_WELCOME_10'],
        orderProducts: [
          {
            productCode: 'PR_INTERNET',
            productActionType: 'CREATE',
            quantity: 1,
            orderAttributes: [
              { attributeCode: 'TIER', stringValue: 'GOLD' },
              { attributeCode: 'REGION', stringValue: 'EU' },
            ],
          },
        ],
      },
    ],
  }
}

const mb = (bytes: number) => (Number.isNaN(bytes) ? '   ? MB' : `${(bytes / MB).toFixed(0).padStart(4)} MB`)
const requests = (m: Measured) =>
  [...m.list, ...m.rawSql, ...m.preview].reduce((sum, r) => sum + r.requestsPerSec * durationSec, 0)
const rps = (results: LoadResult[]) => results.reduce((sum, r) => sum + r.requestsPerSec, 0) / results.length

function report(store: string, name: string, m: Measured): string[] {
  return [
    `${store.padEnd(10)} ${name.padEnd(12)} idle ${mb(m.idleRss)} | after each round ${m.roundRss.map(mb).join(' ')} | ` +
      `peak ${mb(m.idlePeak)} by rest, ${mb(m.peak)} in all | heap used ${mb(m.heapUsed)}, outside the heap ${mb(m.external)}`,
    `${''.padEnd(23)} garbage collection ${((1000 * m.gcSeconds) / requests(m)).toFixed(3)} ms per request`,
    `${''.padEnd(23)} list ${rps(m.list).toFixed(0).padStart(6)} req/s, raw SQL list ${rps(m.rawSql).toFixed(0).padStart(6)} req/s, ` +
      `preview ${rps(m.preview).toFixed(0).padStart(6)} req/s`,
  ]
}

async function main(): Promise<void> {
  const started = Date.now()
  // The built server, fresh: `npm start` would build it the same way.
  const built = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'build.js')], { stdio: 'inherit' })
  assert.equal(built.status, 0, 'bin/build.js failed')
  const configurations: Configuration[] = [{ name: 'npm start', ...startScript() }]
  if (process.env.BENCH_BASELINE !== '0') {
    configurations.push({ name: 'sources', nodeFlags: [], env: { OBOL_FROM_SOURCES: '1' } })
  }
  // Candidate settings to compare, separated by ";": BENCH_FLAGS="--max-semi-space-size=8;--optimize-for-size".
  for (const [i, flags] of (process.env.BENCH_FLAGS ?? '')
    .split(';')
    .filter((f) => f.trim() !== '')
    .entries()) {
    // Leading NAME=value words are the candidate's environment (MALLOC_ARENA_MAX=2 --max-semi-space-size=8).
    const words = flags.trim().split(/\s+/)
    const env = Object.fromEntries(
      words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    )
    configurations.push({ name: `candidate ${i + 1}`, nodeFlags: words.filter((w) => !/^[A-Z_]+=/.test(w)), env })
    process.stdout.write(`candidate ${i + 1}: ${flags.trim()}\n`)
  }
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  const servers: Running[] = []
  const databases: string[] = []
  const dataDirs: string[] = []
  try {
    let port = 18_500 + (process.pid % 1000)
    // Every server runs from the start; the rounds then take them in turn, so a slow spell of the machine weighs
    // on all of them alike and only the server under load is busy.
    for (const configuration of configurations) {
      const only = configuration.env.BENCH_STORE
      if (only === undefined || only === 'PostgreSQL') {
        const name = `obol_bench_memory_${process.pid}_${databases.length}`
        await admin.query(`create database ${name}`)
        databases.push(name)
        const url = new URL(serverUrl)
        url.pathname = `/${name}`
        servers.push(await startServer(configuration, 'PostgreSQL', { DATABASE_URL: url.toString() }, port++))
      }
      if (process.env.BENCH_PGLITE === '1' && (only === undefined || only === 'PGlite')) {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-bench-memory-'))
        dataDirs.push(dataDir)
        servers.push(await startServer(configuration, 'PGlite', { DATA_DIR: dataDir, DATABASE_URL: '' }, port++))
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5000))
    for (const server of servers) await prepare(server)
    for (let r = 0; r < rounds; r += 1) {
      const order = servers.map((_s, i) => servers[(i + r) % servers.length]!)
      for (const server of order) await round(server)
    }
    for (const server of servers) await finish(server)
  } finally {
    for (const server of servers) await stopServer(server)
    for (const name of databases) await admin.query(`drop database if exists ${name} with (force)`)
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true })
    await admin.end()
  }
  const lines = [
    '',
    `Memory, ${rounds} rounds of ${durationSec} s Query API list then ${durationSec} s order preview, ${connections} connections:`,
  ]
  for (const s of servers) lines.push(...report(s.store, s.configuration.name, s.measured))
  const peak = (m: Measured) => Math.max(...m.roundRss)
  for (const store of ['PostgreSQL', 'PGlite']) {
    const baseline = servers.find((s) => s.store === store && s.configuration.name === 'sources')
    if (!baseline) continue
    for (const ours of servers.filter((s) => s.store === store && s !== baseline)) {
      lines.push(
        `${store}: ${ours.configuration.name} / sources: idle ratio ${(ours.measured.idleRss / baseline.measured.idleRss).toFixed(2)}, ` +
          `peak ratio ${(peak(ours.measured) / peak(baseline.measured)).toFixed(2)}, ` +
          `list req/s ratio ${(rps(ours.measured.list) / rps(baseline.measured.list)).toFixed(2)}, ` +
          `preview req/s ratio ${(rps(ours.measured.preview) / rps(baseline.measured.preview)).toFixed(2)}`,
      )
    }
  }
  lines.push(`  whole run: ${((Date.now() - started) / 1000).toFixed(0)} s`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

await main()
