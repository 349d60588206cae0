import fs from 'node:fs'
import path from 'node:path'
import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { startServer, stop, useCli } from '../support/cli.ts'
import { createTestDatabase, onPostgres } from '../support/test-database.ts'

const { root } = useCli()

/**
 * `obol start` restarts itself with the settings that keep it small (bin/obol.js): `--expose-gc` for the one
 * collection of start-up garbage a second after it is ready (src/main.ts), followed by glibc's `malloc_trim`
 * (native/malloc-trim.c, which `start` builds), and glibc's fixed mmap threshold; on
 * PostgreSQL also baseline WebAssembly and two malloc arenas. Started plainly (`node bin/obol.js start`, not `npm
 * start`), the server still gets them all, and collects once.
 */
describe.skipIf(!onPostgres)('obol start on PostgreSQL: memory settings (PostgreSQL only)', { timeout: 90_000 }, () => {
  it('runs with the memory settings and collects its start-up garbage once, after it is ready', async () => {
    const created = await createTestDatabase()
    try {
      const server = await startServer(path.join(root, 'unused'), { DATABASE_URL: created.url!, LOG_LEVEL: 'debug' })
      const argv = fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')
      expect(argv).toEqual(expect.arrayContaining(['--liftoff-only', '--expose-gc']))
      const env = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0')
      expect(env).toEqual(expect.arrayContaining(['MALLOC_MMAP_THRESHOLD_=1048576', 'MALLOC_ARENA_MAX=2']))
      for (let i = 0; i < 100 && !server.output().includes('start-up garbage collected'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(server.output().match(/start-up garbage collected/g)).toHaveLength(1)
      // `start` built native/malloc-trim.c (this machine has a C compiler) and glibc was asked to give back what
      // it held free.
      expect(server.output()).toMatch(/"collected":true,"mallocTrim":true/)
      expect((await fetch(`${server.base}/health/ready`)).status).toBe(200)
      expect(await stop(server)).toMatchObject({ code: 0, signal: null })
    } finally {
      await created.drop()
    }
  })
})

describe('obol start on PGlite: memory settings', { timeout: 90_000 }, () => {
  it("keeps WebAssembly tier-up and glibc arenas, fixes the mmap threshold at 1 MiB, collects once and trims malloc's free memory", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-cli-memory-'))
    try {
      const server = await startServer(dataDir, {
        DATABASE_URL: '',
        LOG_LEVEL: 'debug',
        PGLITE_SHARED_BUFFERS_MB: '32',
      })
      // PGLITE_SHARED_BUFFERS_MB reaches PostgreSQL: PGlite zeroes its shared memory when it opens, so the 32 MB of
      // buffers are resident in its WebAssembly memory from the start (about 21 MB in all with the default 4 MB).
      const metrics = await (await fetch(`${server.base}/metrics`)).text()
      const resident = Number(/^obol_pglite_memory_bytes\{kind="resident"\} (\S+)$/m.exec(metrics)?.[1])
      expect(resident).toBeGreaterThanOrEqual(32 * 1024 * 1024)
      const argv = fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')
      expect(argv).toContain('--expose-gc')
      expect(argv).not.toContain('--liftoff-only')
      const env = fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0')
      expect(env).toContain('MALLOC_MMAP_THRESHOLD_=1048576')
      expect(env.filter((v) => v.startsWith('MALLOC_ARENA_MAX='))).toEqual([])
      for (let i = 0; i < 100 && !server.output().includes('start-up garbage collected'); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(server.output().match(/start-up garbage collected/g)).toHaveLength(1)
      // The memory V8's compiler threads freed in glibc's arenas while optimizing PostgreSQL's WebAssembly during
      // start-up is given back (native/malloc-trim.c, built by `start`): the process is smaller after than before.
      const trimmed = /"mallocTrim":true,"residentMb":\{"before":(\d+),"after":(\d+)\}/.exec(server.output())
      expect(trimmed).not.toBeNull()
      expect(Number(trimmed![2])).toBeLessThan(Number(trimmed![1]))
      expect(await stop(server)).toMatchObject({ code: 0, signal: null })
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
