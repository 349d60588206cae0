import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, obol, startServer, stop, useCli } from '../support/cli.ts'

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
