import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** What benchmarks that run the server as its own process (`obol start`, as operators run it) share. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The environment (`NAME=value` before `node`) and node options of `npm start`, read from package.json so the
 * benchmark measures what operators run. A `${NAME:+word}` in it is expanded as the shell would with `env` (the
 * server's environment): `word` when NAME is set and not empty.
 */
export function startScript(env: Record<string, string | undefined> = process.env): {
  env: Record<string, string>
  nodeFlags: string[]
} {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const expanded = pkg.scripts.start.replace(/\$\{(\w+):\+([^}]*)\}/g, (_all, name: string, word: string) =>
    env[name] ? word : '',
  )
  const words = expanded.split(/\s+/).filter((w) => w !== '')
  const node = words.indexOf('node')
  assert.ok(node >= 0, 'the start script runs node')
  const variables = Object.fromEntries(
    words
      .slice(0, node)
      .filter((w) => w.includes('=')) // not `exec`
      .map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  )
  return {
    env: variables,
    nodeFlags: words.slice(node + 1, words.indexOf('bin/obol.js')).filter((w) => w.startsWith('--')),
  }
}

/** The resident set (VmRSS) of a process, or its peak so far (VmHWM), in bytes. */
export const residentBytes = (pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number => {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))
  return Number(/(\d+)/.exec(line ?? '')![1]) * 1024
}

/** Waits until the server answers ready (two minutes at most), failing with its output if it exits first. */
export async function waitReady(base: string, child: ChildProcess, log: () => string): Promise<void> {
  // Under a loaded machine a first start on PGlite can take minutes: BENCH_READY_SEC (default 120).
  const attempts = (Number(process.env.BENCH_READY_SEC ?? 120) * 1000) / 200
  for (let i = 0; i < attempts; i += 1) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${log()}`)
    try {
      if ((await fetch(`${base}/health/ready`)).ok) return
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`the server did not become ready:\n${log()}`)
}

/** An access token of the admin client (`obol-admin`, its secret given to the server as OBOL_ADMIN_CLIENT_SECRET). */
export async function adminToken(base: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/auth/realms/obol/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'obol-admin', client_secret: secret }),
  })
  assert.equal(response.status, 200, `the token endpoint answered ${response.status}`)
  return ((await response.json()) as { access_token: string }).access_token
}

/** An `obol start` process of the benchmark, with what it printed. */
export interface ObolProcess {
  readonly child: ChildProcess
  readonly base: string
  readonly output: () => string
  /** Stops it (SIGTERM) and waits for it to exit. */
  readonly stop: () => Promise<void>
}

/**
 * Starts the built server (`bin/obol.js start`, `npm start`'s settings) on `databaseUrl` with `args` (e.g.
 * `--role worker`), `env` added; waits until it answers ready, unless it serves no HTTP (`--role worker`).
 */
export async function spawnObol(
  databaseUrl: string,
  options: {
    port: number
    secret: string
    args?: readonly string[]
    env?: Record<string, string>
    nodeFlags?: readonly string[]
  },
): Promise<ObolProcess> {
  const { env, nodeFlags } = startScript({ DATABASE_URL: databaseUrl })
  const { spawn } = await import('node:child_process')
  const child = spawn(
    process.execPath,
    [...nodeFlags, ...(options.nodeFlags ?? []), path.join(ROOT, 'bin', 'obol.js'), 'start', ...(options.args ?? [])],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        DATABASE_URL: databaseUrl,
        PORT: String(options.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        OBOL_ADMIN_CLIENT_SECRET: options.secret,
        OBOL_SKIP_UI_BUILD: '1',
        NODE_OPTIONS: '',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const base = `http://127.0.0.1:${options.port}`
  const worker = (options.args ?? []).join(' ').includes('worker')
  if (worker) {
    // No HTTP: ready once it says so.
    for (let i = 0; !output.includes('Obol worker is running'); i += 1) {
      if (child.exitCode !== null || i > 600) throw new Error(`the worker did not start:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  } else await waitReady(base, child, () => output)
  return {
    child,
    base,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}
