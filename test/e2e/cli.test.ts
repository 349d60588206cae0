import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/obol.js')
const ADMIN = { clientId: 'cli-test-admin', clientSecret: 'cli-test-admin-secret-0123456789' }
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-cli-'))
const children = new Set<ChildProcess>()

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL')
  await Promise.all([...children].map((child) => new Promise((resolve) => child.once('close', resolve))))
  fs.rmSync(root, { recursive: true, force: true })
})

interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

interface Running {
  readonly child: ChildProcess
  readonly exited: Promise<Exit>
  output(): string
}

interface SpawnOptions {
  /** Options of node itself, before the script. */
  nodeArgs?: string[]
  /** Through `script`, so that the process writes to a terminal (a pseudo-terminal). */
  terminal?: boolean
  /** In a process group of its own, so that what it leaves behind can be found. */
  detached?: boolean
}

/** Runs `node bin/obol.js …` with only the environment given (plus PATH and HOME): no DATABASE_URL leaks in. */
function obol(args: string[], env: Record<string, string>, options: SpawnOptions = {}): Running {
  const command = [process.execPath, ...(options.nodeArgs ?? []), BIN, ...args]
  const [file, argv] = options.terminal
    ? ['script', ['-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null']]
    : [command[0]!, command.slice(1)]
  const child = spawn(file, argv, {
    detached: options.detached ?? false,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? root,
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

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

interface Server extends Running {
  readonly base: string
  readonly pid: number
}

/** Starts `obol start` on `dataDir` and resolves once it has printed its URLs (or rejects if it exits first). */
async function startServer(
  dataDir: string,
  env: Record<string, string> = {},
  options: SpawnOptions = {},
): Promise<Server> {
  const port = await freePort()
  const running = obol(['start'], { DATA_DIR: dataDir, PORT: String(port), ...env }, options)
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
async function api(
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

async function stop(server: Server): Promise<Exit> {
  server.child.kill('SIGTERM')
  return server.exited
}

// Each test starts one to three real server processes (PGlite, migrations): a busy machine needs more than the
// default 30 s.
describe('obol CLI', { timeout: 90_000 }, () => {
  it('prints usage for obol --help and for each command, without touching the data directory', async () => {
    const dataDir = path.join(root, 'never-created')
    const cases: [string[], RegExp[]][] = [
      [['--help'], [/^Usage: obol <command>/, /\bstart\b/, /\bmigrate\b/, /\bseed-demo\b/]],
      [
        ['start', '--help'],
        [/^Usage: obol start/, /--role/, /\bPORT\b/, /\bDATA_DIR\b/],
      ],
      [['migrate', '--help'], [/^Usage: obol migrate/]],
      [
        ['seed-demo', '--help'],
        [/^Usage: obol seed-demo/, /50 customers/],
      ],
    ]
    const exits = await Promise.all(cases.map(([args]) => obol(args, { DATA_DIR: dataDir }).exited))
    exits.forEach((exit, i) => {
      const [args, patterns] = cases[i]!
      expect(exit.code, args.join(' ')).toBe(0)
      expect(exit.stderr).toBe('')
      for (const pattern of patterns) expect(exit.stdout, args.join(' ')).toMatch(pattern)
    })
    expect(fs.existsSync(dataDir)).toBe(false)
  })

  it('refuses a bad PORT with a message naming the variable', async () => {
    const dataDir = path.join(root, 'bad-port')
    const exit = await obol(['start'], { DATA_DIR: dataDir, PORT: 'abc' }).exited
    expect(exit.code).not.toBe(0)
    expect(exit.stderr).toMatch(/PORT: expected an integer .*'abc'/)
    expect(exit.stdout).not.toMatch(/ready/)
    expect(fs.existsSync(path.join(dataDir, 'obol.lock'))).toBe(false)
  })

  it('refuses a PORT already in use with a message naming the variable, and frees the data directory', async () => {
    const dataDir = path.join(root, 'port-in-use')
    const taken = net.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as net.AddressInfo
    try {
      const exit = await obol(['start'], { DATA_DIR: dataDir, PORT: String(port) }).exited
      expect(exit.code).not.toBe(0)
      expect(exit.stderr).toContain(`PORT: expected a free port, but 127.0.0.1:${port} is already in use`)
      expect(exit.stdout).not.toMatch(/ready/)
      // Found before anything started: no database, so no credentials generated and lost with this run.
      expect(fs.existsSync(dataDir)).toBe(false)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('warns when OBOL_ADMIN_CLIENT_SECRET is not the secret of a database started before', async () => {
    const dataDir = path.join(root, 'other-secret')
    const first = await startServer(dataDir)
    expect(first.output()).not.toContain('OBOL_ADMIN_CLIENT_SECRET is not the secret')
    first.child.kill('SIGTERM')
    await first.exited
    const second = await startServer(dataDir, { OBOL_ADMIN_CLIENT_SECRET: 'a-different-secret-0123456789' })
    // The warning is a log line (pino, written apart from the ready banner): it may land just after the banner.
    await expect
      .poll(() => second.output(), { timeout: 10_000 })
      .toContain(
        `OBOL_ADMIN_CLIENT_SECRET is not the secret of ${ADMIN.clientId}: it is used on a database's first start only`,
      )
    second.child.kill('SIGTERM')
    await second.exited
  })

  it('starts, prints its URLs, refuses a second start on the same directory, and stops on SIGTERM with code 0', async () => {
    const dataDir = path.join(root, 'lifecycle')
    const first = await startServer(dataDir)
    const printed = first.output()
    expect(printed).toContain(`API:      ${first.base}/api/v1`)
    expect(printed).toContain(`Docs:     ${first.base}/api/docs`)
    expect(printed).toContain(`Health:   ${first.base}/health/ready`)
    expect((await fetch(`${first.base}/health/ready`)).status).toBe(200)
    // The started server is the build (dist/cli.js): it finds the project's files from there too.
    const version = await api(first, 'GET', '/api/rest/v2/generic/version')
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8'))
    expect(version.body).toEqual([expect.objectContaining({ name: 'Obol', version: pkg.version })])

    const second = await obol(['start'], { DATA_DIR: dataDir, PORT: String(await freePort()) }).exited
    expect(second.code).not.toBe(0)
    expect(second.stderr).toContain(dataDir)
    expect(second.stderr).toContain(`process ${first.pid}`)
    expect(second.stdout).not.toMatch(/ready/)
    // The refused start left the first one and its lock alone.
    expect((await fetch(`${first.base}/health/ready`)).status).toBe(200)
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'obol.lock'), 'utf8'))).toMatchObject({ pid: first.pid })

    const exit = await stop(first)
    expect(exit).toMatchObject({ code: 0, signal: null })
    expect(fs.existsSync(path.join(dataDir, 'obol.lock'))).toBe(false)
  })

  it('takes over the lock of a killed process with a warning, and keeps the data written before the kill', async () => {
    const dataDir = path.join(root, 'killed')
    const first = await startServer(dataDir)
    const created = await api(first, 'POST', '/api/v1/languages', { code: 'TLH', description: 'Klingon' })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    first.child.kill('SIGKILL')
    expect((await first.exited).signal).toBe('SIGKILL')
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'obol.lock'), 'utf8'))).toMatchObject({ pid: first.pid })

    const next = await startServer(dataDir)
    expect(next.output()).toMatch(
      new RegExp(`Taking over the lock on ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*process ${first.pid}`),
    )
    const language = await api(next, 'GET', '/api/v1/languages/TLH')
    expect(language.status).toBe(200)
    expect(language.body).toMatchObject({ code: 'TLH', description: 'Klingon' })
    expect((await stop(next)).code).toBe(0)
  })

  it('seed-demo creates the demo tenant once, and start then serves its 50 customers', async () => {
    const dataDir = path.join(root, 'demo')
    const seeded = await obol(['seed-demo'], { DATA_DIR: dataDir }).exited
    expect(seeded.code, seeded.stderr).toBe(0)
    expect(seeded.stdout).toContain('Demo tenant created')
    const again = await obol(['seed-demo'], { DATA_DIR: dataDir }).exited
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('already present')

    const server = await startServer(dataDir)
    const customers = await api(server, 'GET', '/api/v1/customers?limit=100')
    expect(customers.status, JSON.stringify(customers.body)).toBe(200)
    expect(customers.body.total).toBe(50)
    expect(customers.body.data).toHaveLength(50)
    expect((await stop(server)).code).toBe(0)
  })

  it('redirects / to the docs; logs JSON lines when stdout is not a terminal, probes and metrics not at info', async () => {
    const server = await startServer(path.join(root, 'newcomer'), { LOG_LEVEL: 'info' })
    const landing = await fetch(`${server.base}/`, { redirect: 'manual' })
    expect([landing.status, landing.headers.get('location')]).toEqual([302, '/api/docs'])
    for (const probe of ['/health/live', '/health/ready', '/metrics'])
      expect((await fetch(server.base + probe)).ok).toBe(true)
    expect((await fetch(`${server.base}/api/v1/sellers`)).status).toBe(401)
    const exit = await stop(server)
    const lines = exit.stdout.split('\n').filter((line) => line.startsWith('{'))
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string } })
    expect(logged.map((l) => l.msg)).toContain('stopped')
    const urls = logged.flatMap((l) => (l.req ? [l.req.url] : []))
    expect(urls).toContain('/api/v1/sellers')
    expect(urls.filter((url) => url.startsWith('/health') || url.startsWith('/metrics'))).toEqual([])
  }, 120_000)

  it('logs human-readable lines on a terminal', async () => {
    const server = await startServer(
      path.join(root, 'newcomer'),
      { LOG_LEVEL: 'info' },
      { terminal: true, detached: true },
    )
    expect((await fetch(`${server.base}/api/v1/sellers`)).status).toBe(401)
    // The terminal shows the line once the server has written it (stopping `script` first would cut it off).
    for (let i = 0; i < 100 && !/request completed/.test(server.output()); i++)
      await new Promise((resolve) => setTimeout(resolve, 100))
    process.kill(-server.pid, 'SIGTERM')
    const exit = await server.exited
    expect(exit.stdout).toMatch(/INFO.*request completed/)
    expect(exit.stdout).not.toMatch(/^\{"level"/m)
  }, 120_000)

  it.each([
    ['directly', []],
    ['through the re-execution for a Node without type stripping', ['--no-experimental-strip-types']],
  ])(
    'stops the server it started on SIGTERM, run %s, leaving no process behind',
    async (_how, nodeArgs) => {
      const server = await startServer(path.join(root, 'newcomer'), {}, { nodeArgs, detached: true })
      expect((await fetch(`${server.base}/health/live`)).status).toBe(200)
      server.child.kill('SIGTERM')
      const exit = await server.exited
      expect([exit.code, exit.signal]).toEqual([0, null])
      await expect(fetch(`${server.base}/health/live`)).rejects.toThrow()
      // Nothing of its process group is left running (a re-executed child would be).
      expect(() => process.kill(-server.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }))
    },
    120_000,
  )
})
