import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { build, OUTPUT } from '../../bin/build.js'

/** The command lines of this process's children (from /proc). */
function children(): string[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return parent === process.pid ? [fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')] : []
      } catch {
        return [] // ended meanwhile
      }
    })
}

describe.skipIf(process.platform !== 'linux')('the server build (bin/build.js)', { timeout: 60_000 }, () => {
  it('writes dist/cli.js and leaves no esbuild process behind to live as long as the server', async () => {
    const before = Date.now()
    await build()
    expect(fs.statSync(OUTPUT).mtimeMs).toBeGreaterThanOrEqual(before - 1000)
    expect(children().filter((command) => command.includes('esbuild'))).toEqual([])
  })
})
