import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { build, OUTPUT } from '../../bin/build.js'

/** The command lines of this process's live children, as `ps` lists them (itself and exited ones left out). */
function children(): string[] {
  const listed = spawnSync('ps', ['--ppid', String(process.pid), '-o', 'stat=,args='], { encoding: 'utf8' })
  return listed.stdout
    .split('\n')
    .map((line) => /^\s*(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && !match[1]!.startsWith('Z') && !match[2]!.startsWith('ps --ppid'))
    .map((match) => match![2]!)
}

describe.skipIf(process.platform !== 'linux')('the server build (bin/build.js)', { timeout: 60_000 }, () => {
  it('writes dist/cli.js and leaves no esbuild process behind to live as long as the server', async () => {
    const before = Date.now()
    await build()
    expect(fs.statSync(OUTPUT).mtimeMs).toBeGreaterThanOrEqual(before - 1000)
    expect(children().filter((command) => command.includes('esbuild'))).toEqual([])
  })
})
