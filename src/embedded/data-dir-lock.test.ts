import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { acquireDataDirLock, DataDirLockedError, LOCK_OWNER_ENV, type DataDirLock } from './data-dir-lock.ts'

const MODULE = path.join(import.meta.dirname, 'data-dir-lock.ts')

/**
 * A script that locks `dir` (at the time `at`, when given), says so, and releases the lock, or says why it was
 * refused; with `hold`, it keeps running (with the lock) until it is stopped.
 */
function lockScript(dir: string, hold: boolean, at = 0): string {
  return (
    `const { acquireDataDirLock } = await import(${JSON.stringify(MODULE)});` +
    // Several processes given the same moment try at once (each waits for it without yielding).
    `while (Date.now() < ${at});` +
    `try { const lock = acquireDataDirLock(${JSON.stringify(dir)}, (m) => console.log('warned: ' + m));` +
    ` console.log('locked'); if (${hold}) setInterval(() => undefined, 1000); else { lock.release(); console.log('released') } }` +
    ` catch (e) { console.log('refused: ' + e.message); process.exitCode = 3 }`
  )
}

interface Child {
  child: ChildProcess
  exited: Promise<{ code: number | null; output: string }>
  output: () => string
}

/** Runs `script` in a child of this process (with an IPC channel when `ipc`). */
function inChild(script: string, env: Record<string, string>, ipc: boolean): Child {
  const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  // On 'exit' and both outputs ended, not 'close': after this process disconnects, Node does not emit 'close'.
  const ended = (stream: NodeJS.ReadableStream) => new Promise((resolve) => stream.once('end', resolve))
  const exited = Promise.all([
    new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
    ended(child.stdout!),
    ended(child.stderr!),
  ]).then(([code]) => ({ code, output }))
  return { child, exited, output: () => output }
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['--eval', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('close', resolve))
  return child.pid!
}

describe('data directory lock', () => {
  let dir: string
  let lock: DataDirLock | undefined
  const running: ChildProcess[] = []
  afterEach(() => {
    for (const child of running.splice(0)) child.kill('SIGKILL')
    lock?.release()
    lock = undefined
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const newDir = () => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-lock-')))

  it("lets a child that carries its owner's pid, with a channel to it, work under the lock without taking or releasing it", async () => {
    lock = acquireDataDirLock(newDir(), () => undefined)
    const child = inChild(lockScript(dir, false), { [LOCK_OWNER_ENV]: String(process.pid) }, true)
    expect(await child.exited).toEqual({ code: 0, output: 'locked\nreleased\n' })
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid })
  })

  it("refuses a child without the owner's pid, with another pid, without a channel, and the owner's grandchild", async () => {
    lock = acquireDataDirLock(newDir(), () => undefined)
    const owner = { [LOCK_OWNER_ENV]: String(process.pid) }
    // The grandchild carries the right pid and has a channel, but to its own parent, which does not own the lock.
    const grandchild =
      `import { spawn } from 'node:child_process';` +
      `const c = spawn(process.execPath, ['--input-type=module', '--eval', ${JSON.stringify(lockScript(dir, false))}],` +
      ` { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }); c.on('close', (code) => { process.exitCode = code })`
    const refused = [
      inChild(lockScript(dir, false), {}, true),
      inChild(lockScript(dir, false), { [LOCK_OWNER_ENV]: String(process.pid + 1) }, true),
      inChild(lockScript(dir, false), owner, false),
      inChild(grandchild, owner, true),
    ]
    for (const child of refused) {
      const { code, output } = await child.exited
      expect(code, output).toBe(3)
      expect(output).toContain(`refused: Data directory ${dir} is in use by process ${process.pid}`)
    }
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid })
  })

  it('ends such a child when its channel to the owner closes (the owner stopped, however)', async () => {
    lock = acquireDataDirLock(newDir(), () => undefined)
    const child = inChild(lockScript(dir, true), { [LOCK_OWNER_ENV]: String(process.pid) }, true)
    running.push(child.child)
    for (let i = 0; i < 100 && !child.output().includes('locked'); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(child.output()).toBe('locked\n')
    child.child.disconnect()
    const { code, output } = await child.exited
    expect(code).toBe(1)
    expect(output).toContain(`process ${process.pid}, which holds the lock on ${dir}, has stopped`)
  })

  it("is held while the owner's helper runs, though the owner is gone, and taken over once neither runs", async () => {
    const owner = acquireDataDirLock(newDir(), () => undefined)
    owner.setHelper(4242)
    expect(JSON.parse(fs.readFileSync(owner.file, 'utf8'))).toMatchObject({ pid: process.pid, helper: 4242 })
    owner.setHelper(undefined)
    expect(JSON.parse(fs.readFileSync(owner.file, 'utf8'))).not.toHaveProperty('helper')

    // A lock left by an owner that no longer exists, naming a helper that still runs.
    const helper = inChild('setInterval(() => undefined, 1000)', {}, false)
    running.push(helper.child)
    const gone = await deadPid()
    const record = { pid: gone, hostname: os.hostname(), startedAt: new Date().toISOString() }
    fs.writeFileSync(owner.file, JSON.stringify({ ...record, helper: helper.child.pid }))
    let refusal: unknown
    try {
      acquireDataDirLock(dir, () => undefined)
    } catch (error) {
      refusal = error
    }
    expect(refusal).toBeInstanceOf(DataDirLockedError)
    expect((refusal as DataDirLockedError).owner.pid).toBe(helper.child.pid)

    helper.child.kill('SIGKILL')
    await helper.exited
    const warnings: string[] = []
    lock = acquireDataDirLock(dir, (message) => warnings.push(message))
    expect(warnings).toEqual([expect.stringContaining(`process ${gone}`)])
    expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid })
  })

  it('lets exactly one of several processes take over a stale lock at the same moment', async () => {
    newDir()
    const gone = await deadPid()
    const stale = JSON.stringify({ pid: gone, hostname: os.hostname(), startedAt: new Date().toISOString() })
    for (let round = 0; round < 5; round += 1) {
      fs.writeFileSync(path.join(dir, 'obol.lock'), stale)
      const at = Date.now() + 1500
      const racers = Array.from({ length: 4 }, () => inChild(lockScript(dir, true, at), {}, false))
      running.push(...racers.map((r) => r.child))
      for (let i = 0; i < 200 && racers.some((r) => !/locked|refused/.test(r.output())); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 25))
      const locked = racers.filter((r) => r.output().includes('locked\n'))
      expect(locked, racers.map((r) => r.output()).join('|')).toHaveLength(1)
      expect(racers.filter((r) => r.output().includes('refused: Data directory'))).toHaveLength(3)
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'obol.lock'), 'utf8'))).toMatchObject({
        pid: locked[0]!.child.pid,
      })
      for (const racer of racers) racer.child.kill('SIGKILL')
      await Promise.all(racers.map((r) => r.exited))
    }
  })

  it("refuses a child started to work for an owner that has stopped, and leaves the owner's lock", async () => {
    newDir()
    const gone = await deadPid()
    const stale = JSON.stringify({ pid: gone, hostname: os.hostname(), startedAt: new Date().toISOString() })
    fs.writeFileSync(path.join(dir, 'obol.lock'), stale)
    const child = inChild(lockScript(dir, false), { [LOCK_OWNER_ENV]: String(gone) }, true)
    const { code, output } = await child.exited
    expect(code).toBe(3)
    expect(output).toContain(`refused: process ${gone}, which started this one to work on ${dir}, has stopped`)
    expect(fs.readFileSync(path.join(dir, 'obol.lock'), 'utf8')).toBe(stale)
  })
})
