import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect } from 'vitest'

/**
 * Runs the `obol` command as a user would (real processes, real data directories) for the CLI test files. Each file
 * calls `useCli()` for a temporary root of its own, so the files can run in parallel.
 */

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/obol.js')
export const ADMIN = { clientId: 'cli-test-admin', clientSecret: 'cli-test-admin-secret-0123456789' }
const children = new Set<ChildProcess>()

/** A temporary root for this test file's data directories; its processes are killed and it is removed after. */
export function useCli(): { root: string } {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-cli-'))
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL')
    await Promise.all([...children].map((child) => new Promise((resolve) => child.once('close', resolve))))
    fs.rmSync(own, { recursive: true, force: true })
  })
  return { root: own }
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface Running {
  readonly child: ChildProcess
  readonly exited: Promise<Exit>
  output(): string
}

export interface SpawnOptions {
  /** Options of node itself, before the script. */
  nodeArgs?: string[]
  /** Through `script`, so that the process writes to a terminal (a pseudo-terminal). */
  terminal?: boolean
  /** In a process group of its own, so that what it leaves behind can be found. */
  detached?: boolean
}

/** Runs `node bin/obol.js …` with only the environment given (plus PATH and HOME): no DATABASE_URL leaks in. */
export function obol(args: string[], env: Record<string, string>, options: SpawnOptions = {}): Running {
  const command = [process.execPath, ...(options.nodeArgs ?? []), BIN, ...args]
  const [file, argv] = options.terminal
    ? ['script', ['-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null']]
    : [command[0]!, command.slice(1)]
  const child = spawn(file, argv, {
    detached: options.detached ?? false,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      OBOL_ADMIN_CLIENT_ID: ADMIN.clientId,
      OBOL_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
      OBOL_ADMIN_PASSWORD: 'cli-test-admin-password',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child)
      resolve({ code, signal, stdout, stderr })
    })
  })
  return { child, exited, output: () => stdout + stderr }
}

export async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface Server extends Running {
  readonly base: string
  readonly pid: number
}

/**
 * Starts `obol start` (with `options.args` after it) on `dataDir` and resolves once it has printed its URLs (or
 * rejects if it exits first).
 */
export async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  options: SpawnOptions & { args?: string[] } = {},
): Promise<Server> {
  const port = await freePort()
  const running = obol(['start', ...(options.args ?? [])], { DATA_DIR: dataDir, PORT: String(port), ...env }, options)
  const ready = new Promise<void>((resolve) => {
    const check = () => {
      if (/Health:\s+\S+\/health\/ready/.test(running.output())) {
        running.child.stdout!.off('data', check)
        resolve()
      }
    }
    running.child.stdout!.on('data', check)
  })
  const early = running.exited.then((exit) => {
    throw new Error(
      `obol start exited (${exit.code ?? exit.signal}) before it was ready:\n${exit.stdout}${exit.stderr}`,
    )
  })
  await Promise.race([ready, early])
  early.catch(() => undefined)
  return { ...running, base: `http://127.0.0.1:${port}`, pid: running.child.pid! }
}

const tokens = new Map<string, string>()

/** Calls the API of a running server as the bootstrap admin (a client-credentials token). */
export async function api(
  server: Server,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  let token = tokens.get(server.base)
  if (!token) {
    const response = await fetch(`${server.base}/auth/realms/obol/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: ADMIN.clientId,
        client_secret: ADMIN.clientSecret,
      }),
    })
    expect(response.status, await response.clone().text()).toBe(200)
    token = ((await response.json()) as { access_token: string }).access_token
    tokens.set(server.base, token)
  }
  const response = await fetch(`${server.base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

export async function stop(server: Server): Promise<Exit> {
  server.child.kill('SIGTERM')
  return server.exited
}
