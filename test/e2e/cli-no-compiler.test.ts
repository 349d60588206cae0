import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { api, startServer, stop, useCli } from '../support/cli.ts'
import { createTestDatabase, onPostgres } from '../support/test-database.ts'

const { root } = useCli()

/** A PATH of one directory holding only `node`, as on a machine with Node and no C compiler (no cc, gcc, clang). */
function pathWithoutCompiler(): string {
  const bin = fs.mkdtempSync(path.join(root, 'bin-'))
  fs.symlinkSync(process.execPath, path.join(bin, 'node'))
  for (const compiler of ['cc', 'gcc', 'clang']) expect(fs.existsSync(path.join(bin, compiler))).toBe(false)
  return bin
}

/** A fresh checkout's start: builds what it needs and serves, with nothing but Node on PATH. */
async function startsAndServes(env: Record<string, string>): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-cli-plain-path-'))
  try {
    const server = await startServer(dataDir, { ...env, PATH: pathWithoutCompiler() }, { args: ['--demo'] })
    expect((await fetch(`${server.base}/health/ready`)).status).toBe(200)
    const customers = await api(server, 'GET', '/api/v1/query/customer?fields=code&limit=1')
    expect(customers.status).toBe(200)
    expect(server.output()).not.toMatch(/\b(cc|gcc|clang)\b|compiler/)
    expect(await stop(server)).toMatchObject({ code: 0, signal: null })
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

describe('obol start with no C compiler on PATH', { timeout: 120_000 }, () => {
  it.skipIf(onPostgres)('starts on embedded PGlite and serves', async () => {
    await startsAndServes({ DATABASE_URL: '' })
  })

  it.skipIf(!onPostgres)('starts on PostgreSQL and serves', async () => {
    const created = await createTestDatabase()
    try {
      await startsAndServes({ DATABASE_URL: created.url! })
    } finally {
      await created.drop()
    }
  })
})
