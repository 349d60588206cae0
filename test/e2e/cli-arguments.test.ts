import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN, obol, startServer, useCli } from '../support/cli.ts'

const { root } = useCli()

// Each test starts one to three real server processes (PGlite, migrations): a busy machine needs more than the
// default 30 s.
describe('obol CLI: arguments, usage and configuration errors', { timeout: 90_000 }, () => {
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
})
