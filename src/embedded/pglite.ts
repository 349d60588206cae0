import fs from 'node:fs'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { PGLITE_SHARED_BUFFERS_MB } from '../kernel/config.ts'
import { runNode } from './child-process.ts'
import { releaseFileBundle, type ReleasedBundle } from './pglite-bundle.ts'

/** The embedded cluster's directory inside DATA_DIR. */
export function pgliteDataDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata')
}

export interface PgliteOptions {
  /** A data directory on disk; without it (and without `loadDataDir`), an in-memory database. */
  dataDir?: string
  /** A dump (`dumpDataDir`) to start from: the test suite's migrated template. */
  loadDataDir?: Blob
  /** PostgreSQL's shared buffers (PGLITE_SHARED_BUFFERS_MB). */
  sharedBuffersMb?: number
  /**
   * A new directory's cluster is created by PGlite in this process, not by initdbInChild. For a process that works
   * for another under its lock (src/embedded/embedded-database.ts, prepareInChild): it is short-lived and on baseline
   * code already, and a grandchild would not be ended with it if its parent were killed, and could go on writing the
   * directory after the lock is free.
   */
  createInProcess?: boolean
}

/**
 * PostgreSQL settings of the embedded database, given at every start after PGlite's own (so data directories made
 * before them are covered too). Its shared memory is allocated inside PGlite's WebAssembly memory, which never
 * shrinks, and PGlite zeroes all of it when it opens: every MB of it is resident from the first second.
 * `sharedBuffersMb` (PGLITE_SHARED_BUFFERS_MB, 4 by default) instead of initdb's 128 MB; PGlite serves one
 * connection, so 8 connection slots and no WAL senders instead of a server's 100 and 10 (docs/decisions.md).
 */
export function pgliteSettings(sharedBuffersMb: number): string[] {
  return ['-c', `shared_buffers=${sharedBuffersMb}MB`, '-c', 'max_connections=8', '-c', 'max_wal_senders=0']
}

/**
 * Creates the PostgreSQL cluster of a new data directory in a short-lived child process on baseline WebAssembly
 * code (`--liftoff-only`): PGlite's initdb runs a second PostgreSQL instance and dumps its whole memory, a peak the
 * server does not then carry (docs/decisions.md).
 */
async function initdbInChild(dataDir: string): Promise<void> {
  const pglite = import.meta.resolve('@electric-sql/pglite')
  const script =
    `const { PGlite } = await import(${JSON.stringify(pglite)});` +
    `const pg = await PGlite.create({ dataDir: ${JSON.stringify(dataDir)} }); await pg.close()`
  await runNode(
    ['--liftoff-only', '--input-type=module', '--eval', script],
    { ...process.env, NODE_OPTIONS: '' },
    `creating the embedded database in ${dataDir} failed`,
  )
}

/**
 * Opens embedded PostgreSQL (PGlite) with the settings above and the trigram extension; a new directory is given its
 * cluster by a child process first, and PGlite's file bundle is then read from disk (pglite-bundle.ts). `bundle` is
 * closed after the database.
 */
export async function createPglite(
  options: PgliteOptions = {},
): Promise<{ pglite: PGlite; bundle: ReleasedBundle | undefined }> {
  if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true })
  // A new directory (no PG_VERSION yet) is given its cluster by a child process; a directory to be loaded from a
  // dump is left to PGlite.
  if (
    options.dataDir &&
    !options.loadDataDir &&
    !options.createInProcess &&
    !fs.existsSync(path.join(options.dataDir, 'PG_VERSION'))
  )
    await initdbInChild(options.dataDir)
  // Loaded here, not with this module: a server on PostgreSQL never holds PGlite's code.
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ])
  const pglite = await PGlite.create({
    // Trigram indexes serve fullTextFilter on huge entities (migrations/0015_opencell.sql).
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...pgliteSettings(options.sharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB)],
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
  })
  return { pglite, bundle: releaseFileBundle(pglite) }
}
