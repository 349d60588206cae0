import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export interface LockOwner {
  pid: number
  hostname: string
  startedAt: string
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
  release(): void
}

/**
 * Set by a lock's owner in the environment of a child process it starts to work on the directory while the owner
 * waits (a first start prepares a new embedded database that way: src/main.ts): its process id.
 */
export const LOCK_OWNER_ENV = 'OBOL_DATA_DIR_LOCK_OWNER'

/**
 * Embedded PostgreSQL allows one process per data directory. The lock file names its owner; a lock whose
 * owner no longer exists on this host (checked by pid) is taken over with a warning. A child of the owner that
 * carries the owner's pid in LOCK_OWNER_ENV works under the owner's lock: it neither takes it nor releases it.
 */
export function acquireDataDirLock(dataDir: string, warn: (message: string) => void): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, 'obol.lock')
  const me: LockOwner = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' })
      return {
        file,
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
    let owner: LockOwner | undefined
    try {
      owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner
    } catch {
      owner = undefined
    }
    if (
      owner &&
      owner.hostname === os.hostname() &&
      owner.pid === process.ppid &&
      process.env[LOCK_OWNER_ENV] === String(owner.pid)
    )
      return { file, release: () => undefined }
    if (owner && owner.pid !== process.pid && owner.hostname === os.hostname() && isAlive(owner.pid)) {
      throw new DataDirLockedError(dataDir, owner)
    }
    if (owner && owner.hostname !== os.hostname()) throw new DataDirLockedError(dataDir, owner)
    warn(
      owner
        ? `Taking over the lock on ${dataDir}: its owner, process ${owner.pid} (started ${owner.startedAt}), no longer exists.`
        : `Taking over an unreadable lock file on ${dataDir}.`,
    )
    fs.rmSync(file, { force: true })
  }
  throw new Error(`Could not lock data directory ${dataDir}`)
}
