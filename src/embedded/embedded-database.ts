import fs from 'node:fs'
import path from 'node:path'
import type pino from 'pino'
import type { Config } from '../kernel/config.ts'
import { openPglite, type Database } from '../kernel/db/database.ts'
import { runNode } from './child-process.ts'
import { acquireDataDirLock, LOCK_OWNER_ENV, type DataDirLock } from './data-dir-lock.ts'
import { pgliteDataDir } from './pglite.ts'

export interface EmbeddedDatabase {
  database: Database
  lock: DataDirLock
  /** A new embedded database was created, migrated and, when asked, seeded by a child process (prepareInChild). */
  prepared: boolean
}

/**
 * A first start on embedded PGlite has its new database created, migrated and, with --demo, seeded by a child
 * process (`obol migrate` or `obol seed-demo`, working under this process's lock), and then opens it. That work runs
 * most of PostgreSQL's WebAssembly, and PGlite's WebAssembly memory, which never shrinks, grows to hold it; in a
 * child, that memory goes when it exits, and the server at rest is the same as on any later start
 * (docs/decisions.md).
 */
async function prepareInChild(demo: boolean, lock: DataDirLock): Promise<void> {
  try {
    await runNode(
      [
        ...process.execArgv.filter((a) => !a.startsWith('--inspect')),
        '--liftoff-only',
        process.argv[1]!,
        demo ? 'seed-demo' : 'migrate',
      ],
      { ...process.env, [LOCK_OWNER_ENV]: String(process.pid) },
      'preparing the new embedded database failed',
      // The lock names the child while it runs, so it stays held if this process is killed meanwhile; the channel
      // ends the child once its work waits for the event loop (data-dir-lock.ts).
      { ipc: true, started: (child) => lock.setHelper(child.pid) },
    )
  } finally {
    lock.setHelper(undefined)
  }
}

/**
 * Embedded PGlite under DATA_DIR, one process at a time (its lock). With `prepareNew`, a new database is prepared
 * by a child process first (prepareInChild).
 */
export async function openEmbeddedDatabase(
  config: Config,
  log: pino.Logger,
  options: { prepareNew?: { demo: boolean } } = {},
): Promise<EmbeddedDatabase> {
  const lock = acquireDataDirLock(config.dataDir, (message) => log.warn(message))
  try {
    const dataDir = pgliteDataDir(config.dataDir)
    // A directory without PG_VERSION has no cluster yet (createPglite decides the same).
    const prepared =
      options.prepareNew !== undefined &&
      process.argv[1] !== undefined &&
      !fs.existsSync(path.join(dataDir, 'PG_VERSION'))
    if (prepared) await prepareInChild(options.prepareNew!.demo, lock)
    return {
      database: await openPglite({
        dataDir,
        sharedBuffersMb: config.pgliteSharedBuffersMb,
        createInProcess: lock.inherited,
      }),
      lock,
      prepared,
    }
  } catch (error) {
    lock.release()
    throw error
  }
}
