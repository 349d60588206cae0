import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface LockOwner {
  pid: number
  hostname: string
  startedAt: string
  /** A child process working on the directory for the owner (DataDirLock.setHelper), while it runs. */
  helper?: number
}

export class DataDirLockedError extends Error {
  readonly dataDir: string
  readonly owner: LockOwner
  constructor(dataDir: string, owner: LockOwner) {
    super(
      `Data directory ${dataDir} is in use by process ${owner.pid} on ${owner.hostname} (started ${owner.startedAt}). ` +
        'Stop that process, or set DATA_DIR to another directory, or set DATABASE_URL to share a PostgreSQL server.',
    )
    this.name = 'DataDirLockedError'
    this.dataDir = dataDir
    this.owner = owner
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export interface DataDirLock {
  readonly file: string
  /** Held by this process's parent, for which it works (see acquireDataDirLock). */
  readonly inherited: boolean
  /**
   * Names (or, undefined, no longer names) a child process working on the directory for the owner: the lock is held
   * while either of them runs, so a start after the owner is killed does not open the directory under the child.
   */
  setHelper(pid: number | undefined): void
  release(): void
}

/**
 * Set by a lock's owner in the environment of a child process it starts to work on the directory while the owner
 * waits (a first start prepares a new embedded database that way: src/main.ts): its process id.
 */
export const LOCK_OWNER_ENV = 'OBOL_DATA_DIR_LOCK_OWNER'

/** Tries to create or take over a lock, ATTEMPTS times, RETRY_MS apart while another process takes it over. */
const ATTEMPTS = 50
const RETRY_MS = 20
/** A takeover guard older than this was left by a process killed inside it (it is held for a few milliseconds). */
const GUARD_STALE_MS = 10_000

/**
 * Creates `file` holding `text`, failing with EEXIST when it exists. Written aside and linked into place, so that the
 * file never exists empty or half-written: a reader taking that for a stale lock would remove a live one.
 */
function createWhole(file: string, text: string): void {
  const aside = `${file}.${process.pid}.new`
  fs.writeFileSync(aside, text)
  try {
    fs.linkSync(aside, file)
  } finally {
    fs.rmSync(aside, { force: true })
  }
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/**
 * Removes a stale lock file, unless it changed since it was read as `seen`. One process at a time does so, inside a
 * guard directory (creating a directory either succeeds or fails, atomically): two processes taking over the same
 * stale lock would otherwise each remove it and write their own, the second removing the first's new lock, and both
 * would open the database. False when another process holds the guard (look again shortly); true when the stale
 * file is gone.
 */
function removeStale(file: string, seen: string): boolean {
  const guard = `${file}.takeover`
  try {
    fs.mkdirSync(guard)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > GUARD_STALE_MS) fs.rmdirSync(guard)
    } catch {
      // Gone meanwhile.
    }
    return false
  }
  try {
    let now: string | undefined
    try {
      now = fs.readFileSync(file, 'utf8')
    } catch {
      now = undefined
    }
    if (now === seen) fs.rmSync(file, { force: true })
    return now === seen || now === undefined
  } finally {
    fs.rmdirSync(guard)
  }
}

/** The process holding a lock: its owner, else the owner's helper, when one runs on this host. */
function holder(owner: LockOwner): LockOwner | undefined {
  if (owner.hostname !== os.hostname()) return owner
  if (owner.pid !== process.pid && isAlive(owner.pid)) return owner
  if (owner.helper !== undefined && owner.helper !== process.pid && isAlive(owner.helper))
    return { ...owner, pid: owner.helper }
  return undefined
}

/**
 * Embedded PostgreSQL allows one process per data directory. The lock file names its owner and, while one runs,
 * the owner's helper; a lock neither of which exists any more on this host (checked by pid) is taken over with a
 * warning.
 *
 * A child of the owner that carries the owner's pid in LOCK_OWNER_ENV and was started with an IPC channel works
 * under the owner's lock: it neither takes it nor releases it. The owner names it as its helper in the lock file
 * while it runs, so the directory stays locked until it ends though the owner is killed (its work usually runs to
 * the end: it exits on the channel's closing only when it next waits for the event loop). Started so but finding
 * the owner gone, it refuses.
 */
export function acquireDataDirLock(dataDir: string, warn: (message: string) => void): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, 'obol.lock')
  const me: LockOwner = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      createWhole(file, JSON.stringify(me))
      return {
        file,
        inherited: false,
        setHelper: (pid) => {
          // Written aside and renamed, so that a reader never sees half a file.
          const aside = `${file}.${process.pid}`
          fs.writeFileSync(aside, JSON.stringify(pid === undefined ? me : { ...me, helper: pid }))
          fs.renameSync(aside, file)
        },
        release: () => {
          try {
            const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner
            if (owner.pid === me.pid) fs.unlinkSync(file)
          } catch {
            // Already gone: nothing to release.
          }
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let text: string
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch {
      continue // Removed meanwhile: try to create it again.
    }
    let owner: LockOwner | undefined
    try {
      owner = JSON.parse(text) as LockOwner
    } catch {
      owner = undefined
    }
    if (
      owner &&
      owner.hostname === os.hostname() &&
      owner.pid === process.ppid &&
      process.env[LOCK_OWNER_ENV] === String(owner.pid) &&
      process.channel
    ) {
      // When its work next waits for the event loop (PGlite's statements run one after another without doing so).
      process.once('disconnect', () => {
        process.stderr.write(`obol: process ${owner.pid}, which holds the lock on ${dataDir}, has stopped\n`)
        process.exit(1)
      })
      // The channel alone does not keep this process running once its work is done.
      process.channel.unref()
      return { file, inherited: true, setHelper: () => undefined, release: () => undefined }
    }
    const held = owner && holder(owner)
    if (held) throw new DataDirLockedError(dataDir, held)
    // Started to work for an owner (LOCK_OWNER_ENV) that has stopped before this process could: the work was the
    // owner's, and the next start does it.
    if (owner && process.env[LOCK_OWNER_ENV] === String(owner.pid))
      throw new Error(`process ${owner.pid}, which started this one to work on ${dataDir}, has stopped`)
    if (!removeStale(file, text)) {
      pause(RETRY_MS)
      continue
    }
    warn(
      owner
        ? `Taking over the lock on ${dataDir}: its owner, process ${owner.pid} (started ${owner.startedAt}), no longer exists.`
        : `Taking over an unreadable lock file on ${dataDir}.`,
    )
  }
  throw new Error(`Could not lock data directory ${dataDir}`)
}
