import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, freePort, obol, startServer, stop, useCli } from '../support/cli.ts'

const { root } = useCli()

// Seeding the demo tenant and serving it takes the longest of the CLI tests: a file of its own runs beside the others.
describe('obol CLI: seed-demo', { timeout: 90_000 }, () => {
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
})

describe('obol CLI: start --demo on a new directory', { timeout: 90_000 }, () => {
  it('has a child process create, migrate and seed the database under its lock, then serves the demo tenant', async () => {
    const dataDir = path.join(root, 'first-demo')
    const first = await startServer(dataDir, { LOG_LEVEL: 'info' }, { args: ['--demo'] })
    expect(first.output()).toContain(
      'new embedded database created, migrated and seeded with the demo data by a child process',
    )
    // The child worked under the server's lock: it neither took it nor released it.
    const lock = JSON.parse(fs.readFileSync(path.join(dataDir, 'obol.lock'), 'utf8'))
    expect(lock).toMatchObject({ pid: first.pid })
    // It was named in the lock while it ran, and no longer is.
    expect(lock).not.toHaveProperty('helper')
    const customers = await api(first, 'GET', '/api/v1/customers?limit=1')
    expect(customers.status, JSON.stringify(customers.body)).toBe(200)
    expect(customers.body.total).toBe(50)
    expect((await stop(first)).code).toBe(0)
    expect(fs.existsSync(path.join(dataDir, 'obol.lock'))).toBe(false)

    // A later start opens the database it finds, in its own process.
    const next = await startServer(dataDir, { LOG_LEVEL: 'info' }, { args: ['--demo'] })
    expect(next.output()).not.toContain('child process')
    expect(next.output()).toContain('demo data already present')
    expect((await stop(next)).code).toBe(0)
  })

  it('fails with what the child said, and frees the directory, when the child cannot prepare it', async () => {
    const dataDir = path.join(root, 'unpreparable')
    fs.mkdirSync(dataDir, { recursive: true })
    // A file where the embedded database's directory goes.
    fs.writeFileSync(path.join(dataDir, 'pgdata'), '')
    const run = await obol(['start', '--demo'], { DATA_DIR: dataDir, PORT: String(await freePort()) }).exited
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^obol: preparing the new embedded database failed \(exit code 1\):/)
    expect(run.stderr).toContain(`EEXIST: file already exists, mkdir '${path.join(dataDir, 'pgdata')}'`)
    expect(run.stderr).not.toMatch(/^\s+at /m)
    expect(fs.existsSync(path.join(dataDir, 'obol.lock'))).toBe(false)
  })
})
