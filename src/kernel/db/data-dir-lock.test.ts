import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { acquireDataDirLock, LOCK_OWNER_ENV, type DataDirLock } from './data-dir-lock.ts'

const MODULE = path.join(import.meta.dirname, 'data-dir-lock.ts')

/** Runs acquireDataDirLock(dir) in a child of this process, then release(); what it printed or threw. */
async function inChild(dir: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const script =
    `const { acquireDataDirLock } = await import(${JSON.stringify(MODULE)});` +
    `try { const lock = acquireDataDirLock(${JSON.stringify(dir)}, (m) => console.log('warned: ' + m));` +
    ` console.log('locked'); lock.release(); console.log('released') }` +
    ` catch (e) { console.log('refused: ' + e.message); process.exitCode = 3 }`
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, output }
}

describe('data directory lock', () => {
  let dir: string
  let lock: DataDirLock | undefined
  afterEach(() => {
    lock?.release()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("lets a child that carries its owner's pid work under the lock, without taking or releasing it", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-lock-'))
    lock = acquireDataDirLock(dir, () => undefined)
    const child = await inChild(dir, { [LOCK_OWNER_ENV]: String(process.pid) })
    expect(child).toEqual({ code: 0, output: 'locked\nreleased\n' })
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid })
  })

  it('refuses a child without it, or with the pid of another process', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-lock-'))
    lock = acquireDataDirLock(dir, () => undefined)
    const envs: Record<string, string>[] = [{}, { [LOCK_OWNER_ENV]: String(process.pid + 1) }]
    for (const env of envs) {
      const child = await inChild(dir, env)
      expect(child.code).toBe(3)
      expect(child.output).toContain(`refused: Data directory ${dir} is in use by process ${process.pid}`)
    }
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid })
  })
})
