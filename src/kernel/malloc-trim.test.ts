import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildNative, digestFileOf, isNativeStale, sha256Of } from '../../bin/build-native.js'
import { loadMallocTrim } from './malloc-trim.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-malloc-trim-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A machine without a C compiler builds nothing; the server then runs without the module (tested below). */
const compiler = spawnSync(process.env.CC || 'cc', ['--version']).status === 0
const linux = process.platform === 'linux'

/** Runs `build` with the environment changed as given (undefined removes a variable), then puts it back. */
function withEnv<T>(changes: Record<string, string | undefined>, build: () => T): T {
  const saved = Object.fromEntries(Object.keys(changes).map((name) => [name, process.env[name]]))
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) Reflect.deleteProperty(process.env, name)
      else process.env[name] = value
    }
  }
  apply(changes)
  try {
    return build()
  } finally {
    apply(saved)
  }
}

/** A stand-in compiler: a shell script given its body. */
function script(name: string, body: string): string {
  const file = path.join(dir, name)
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}

describe.skipIf(!compiler || !linux)('malloc_trim module (native/malloc-trim.c)', () => {
  const file = path.join(dir, 'built', 'malloc-trim.node')

  it('is built with the C compiler, checked, written whole with its digest, and is then up to date', () => {
    expect(isNativeStale(file)).toBe(true)
    expect(buildNative(file)).toEqual({ built: true })
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['malloc-trim.node', 'malloc-trim.node.sha256'])
    expect(fs.readFileSync(digestFileOf(file), 'utf8')).toBe(`${sha256Of(file)}\n`)
    expect(isNativeStale(file)).toBe(false)
  })

  it('gives back the memory freed between blocks still in use, and says so', () => {
    // A fresh process: 2,000 blocks of 60 KB (below glibc's mmap threshold, so inside its heap), every other one
    // freed. Each hole lies between two blocks in use: glibc keeps the 60 MB until malloc_trim gives it back.
    const code = `
      const { loadMallocTrim } = await import(${JSON.stringify(path.resolve('src/kernel/malloc-trim.ts'))})
      const { trim } = loadMallocTrim(${JSON.stringify(file)})
      const kept = []
      let freed = []
      for (let i = 0; i < 2000; i++) (i % 2 ? kept : freed).push(new Uint8Array(60_000).fill(1))
      freed = undefined
      for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((resolve) => setTimeout(resolve, 100)) }
      const before = process.memoryUsage.rss()
      const released = trim()
      const after = process.memoryUsage.rss()
      console.log(JSON.stringify({ released, givenBackMb: (before - after) / 1048576, kept: kept.length }))
    `
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], {
      encoding: 'utf8',
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' },
    })
    expect(run.stderr).toBe('')
    const result = JSON.parse(run.stdout) as { released: boolean; givenBackMb: number; kept: number }
    expect(result.released).toBe(true)
    expect(result.givenBackMb).toBeGreaterThan(40)
    expect(result.kept).toBe(1000)
  })

  it('is refused without being opened when its bytes are not those built (a truncated copy), and rebuilt', () => {
    // A shared object cut short crashes the process that opens it (SIGBUS): the loader must not open it at all.
    const damaged = path.join(dir, 'damaged', 'malloc-trim.node')
    fs.mkdirSync(path.dirname(damaged))
    fs.writeFileSync(damaged, fs.readFileSync(file).subarray(0, 4096))
    fs.copyFileSync(digestFileOf(file), digestFileOf(damaged))
    expect(loadMallocTrim(damaged)).toEqual({
      reason: 'not the file that was built; the next start builds it again',
    })
    expect(isNativeStale(damaged)).toBe(true)
    fs.rmSync(digestFileOf(damaged))
    expect(loadMallocTrim(damaged)).toEqual({
      reason: 'no digest of the build beside it; the next start builds it again',
    })
    expect(buildNative(damaged)).toEqual({ built: true })
    expect(loadMallocTrim(damaged)).toEqual({ trim: expect.any(Function) as unknown })
  })

  it("removes what builds of ended processes left behind, not a running build's", () => {
    const output = path.join(dir, 'leftovers', 'malloc-trim.node')
    fs.mkdirSync(path.dirname(output))
    const ended = spawnSync('true').pid
    const running = process.ppid
    for (const name of [`malloc-trim.node.${ended}.tmp`, `malloc-trim.node.sha256.${ended}.tmp`])
      fs.writeFileSync(path.join(path.dirname(output), name), 'left')
    fs.writeFileSync(path.join(path.dirname(output), `malloc-trim.node.${running}.tmp`), 'being built')
    expect(buildNative(output)).toEqual({ built: true })
    expect(fs.readdirSync(path.dirname(output)).sort()).toEqual([
      'malloc-trim.node',
      `malloc-trim.node.${running}.tmp`,
      'malloc-trim.node.sha256',
    ])
  })

  it('takes a CC with arguments (ccache gcc, zig cc)', () => {
    const output = path.join(dir, 'cc-args', 'malloc-trim.node')
    expect(withEnv({ CC: `${process.env.CC || 'cc'} -O0 -g` }, () => buildNative(output))).toEqual({ built: true })
  })

  it('refuses what a compiler built that does not load, and tells', () => {
    const garbage = script('garbage-cc', 'while [ "$1" != "-o" ]; do shift; done; echo not-elf > "$2"')
    const output = path.join(dir, 'garbage', 'malloc-trim.node')
    expect(withEnv({ CC: garbage }, () => buildNative(output))).toEqual({
      built: false,
      reason: `what ${garbage} built does not load in Node`,
      tell: true,
    })
    expect(fs.readdirSync(path.dirname(output))).toEqual([])
  })
})

describe(loadMallocTrim.name, () => {
  it('answers "not built" when there is no module', () => {
    expect(loadMallocTrim(path.join(dir, 'missing.node'))).toEqual({ reason: 'not built' })
  })

  it('answers why when a file with the recorded digest does not load', () => {
    const other = path.join(dir, 'other.node')
    fs.writeFileSync(other, 'not a shared object')
    fs.writeFileSync(digestFileOf(other), `${sha256Of(other)}\n`)
    expect(loadMallocTrim(other)).toEqual({ reason: expect.stringMatching(/^does not load: /) as unknown })
  })
})

describe.skipIf(!linux)(buildNative.name, () => {
  it('says nothing when there is no compiler (no cc on the PATH, no CC), and leaves nothing behind', () => {
    const empty = fs.mkdtempSync(path.join(dir, 'path-'))
    const result = withEnv({ CC: undefined, PATH: empty }, () => buildNative(path.join(dir, 'none', 'm.node')))
    expect(result).toEqual({ built: false, reason: expect.stringContaining('ENOENT') as string })
    expect(fs.readdirSync(path.join(dir, 'none'))).toEqual([])
  })

  it('tells when the CC it was given cannot be run', () => {
    const missing = path.join(dir, 'no-such-compiler')
    const result = withEnv({ CC: missing }, () => buildNative(path.join(dir, 'named', 'm.node')))
    expect(result).toEqual({ built: false, reason: expect.stringContaining('ENOENT') as string, tell: true })
  })

  it('tells when the compiler fails, and leaves nothing behind', () => {
    const result = withEnv({ CC: 'false' }, () => buildNative(path.join(dir, 'failed', 'm.node')))
    expect(result).toEqual({ built: false, reason: 'false exited with 1', tell: true })
    expect(fs.readdirSync(path.join(dir, 'failed'))).toEqual([])
  })

  it('gives up on a compiler that does not finish, and tells', () => {
    const hanging = script('hanging-cc', 'sleep 30')
    const started = Date.now()
    const result = withEnv({ CC: hanging }, () => buildNative(path.join(dir, 'hung', 'm.node'), { timeoutMs: 300 }))
    expect(result).toEqual({ built: false, reason: `${hanging} did not finish within 0.3 s`, tell: true })
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(fs.readdirSync(path.join(dir, 'hung'))).toEqual([])
  })

  it('answers why, without throwing or telling, when its directory cannot be created', () => {
    const file = path.join(dir, 'a-file')
    fs.writeFileSync(file, '')
    const result = buildNative(path.join(file, 'native', 'm.node'))
    expect(result).toEqual({ built: false, reason: expect.stringContaining('ENOTDIR') as string })
  })
})
