import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildNative, isNativeStale } from '../../bin/build-native.js'
import { loadMallocTrim } from './malloc-trim.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-malloc-trim-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A machine without a C compiler builds nothing; the server then runs without the module (tested below). */
const compiler = spawnSync(process.env.CC || 'cc', ['--version']).status === 0

describe.skipIf(!compiler || process.platform !== 'linux')('malloc_trim module (native/malloc-trim.c)', () => {
  const file = path.join(dir, 'malloc-trim.node')

  it('is built with the C compiler, written whole, and is then up to date', () => {
    expect(isNativeStale(file)).toBe(true)
    expect(buildNative(file)).toEqual({ built: true })
    expect(fs.readdirSync(dir)).toEqual(['malloc-trim.node'])
    expect(isNativeStale(file)).toBe(false)
  })

  it('gives back the memory freed between blocks still in use, and says so', () => {
    // A fresh process: 2,000 blocks of 60 KB (below glibc's mmap threshold, so inside its heap), every other one
    // freed. Each hole lies between two blocks in use: glibc keeps the 60 MB until malloc_trim gives it back.
    const script = `
      const { loadMallocTrim } = await import(${JSON.stringify(path.resolve('src/kernel/malloc-trim.ts'))})
      const trim = loadMallocTrim(${JSON.stringify(file)})
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
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '131072' },
    })
    expect(run.stderr).toBe('')
    const result = JSON.parse(run.stdout) as { released: boolean; givenBackMb: number; kept: number }
    expect(result.released).toBe(true)
    expect(result.givenBackMb).toBeGreaterThan(40)
    expect(result.kept).toBe(1000)
  })
})

describe(loadMallocTrim.name, () => {
  it('answers undefined when the module was not built', () => {
    expect(loadMallocTrim(path.join(dir, 'missing.node'))).toBeUndefined()
  })

  it('answers undefined when the file does not load (built for another machine, or damaged)', () => {
    const damaged = path.join(dir, 'damaged.node')
    fs.writeFileSync(damaged, 'not a shared object')
    expect(loadMallocTrim(damaged)).toBeUndefined()
  })
})

describe.skipIf(process.platform !== 'linux')(buildNative.name, () => {
  function withCompiler<T>(compiler: string, run: () => T): T {
    const saved = process.env.CC
    process.env.CC = compiler
    try {
      return run()
    } finally {
      if (saved === undefined) delete process.env.CC
      else process.env.CC = saved
    }
  }

  it('answers why when the compiler is missing, and leaves nothing behind', () => {
    const result = withCompiler(path.join(dir, 'no-such-compiler'), () =>
      buildNative(path.join(dir, 'none', 'malloc-trim.node')),
    )
    expect(result).toEqual({ built: false, reason: expect.stringContaining('ENOENT') as string })
    expect(fs.readdirSync(path.join(dir, 'none'))).toEqual([])
  })

  it('says the compiler failed when it does (what `start` reports), and leaves nothing behind', () => {
    const result = withCompiler('false', () => buildNative(path.join(dir, 'failed', 'malloc-trim.node')))
    expect(result).toEqual({ built: false, reason: 'false exited with 1', compilerFailed: true })
    expect(fs.readdirSync(path.join(dir, 'failed'))).toEqual([])
  })

  it('answers why, without throwing, when its directory cannot be created', () => {
    const file = path.join(dir, 'a-file')
    fs.writeFileSync(file, '')
    const result = buildNative(path.join(file, 'native', 'malloc-trim.node'))
    expect(result).toEqual({ built: false, reason: expect.stringContaining('ENOTDIR') as string })
  })
})
