import { execFile } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

/**
 * A throwaway PostgreSQL primary and a streaming replica of it, each a cluster of its own (initdb, pg_basebackup -R,
 * pg_ctl) on free ports, under a temporary directory: tests on a real replica depend on nothing of the machine's own
 * server but its binaries. The servers run as the `postgres` user when the tests run as root.
 */

const run = promisify(execFile)

export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin'

/** Whether the binaries are here (and, as root, the `postgres` user to run them). */
export function canStartClusters(): boolean {
  const needed = ['initdb', 'pg_ctl', 'pg_basebackup'].every((name) => fs.existsSync(path.join(POSTGRES_BIN, name)))
  if (!needed) return false
  if (process.getuid?.() !== 0) return true
  try {
    return fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .some((line) => line.startsWith('postgres:'))
  } catch {
    return false
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo
      server.close(() => resolve(address.port))
    })
  })
}

async function pgTool(binary: string, args: string[]): Promise<string> {
  const file = path.join(POSTGRES_BIN, binary)
  const asRoot = process.getuid?.() === 0
  const { stdout } = await run(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, {
    timeout: 60_000,
  })
  return stdout
}

export interface ReplicaCluster {
  /** postgres://postgres@127.0.0.1:<port>/<database> of the primary. */
  readonly primaryUrl: string
  readonly replicaUrl: string
  stopReplica(): Promise<void>
  startReplica(): Promise<void>
  /** Stops both servers and removes their files. */
  destroy(): Promise<void>
}

/**
 * Starts a primary holding `database` and a replica that applies each commit `applyDelayMs` after the primary made
 * it (recovery_min_apply_delay), so a test can tell a read on the replica from one on the primary.
 */
export async function startReplicaCluster(options: {
  database: string
  applyDelayMs: number
}): Promise<ReplicaCluster> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-replica-'))
  fs.chmodSync(root, 0o777)
  const primaryDir = path.join(root, 'primary')
  const replicaDir = path.join(root, 'replica')
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const started: string[] = []
  const ctl = (dir: string, action: 'start' | 'stop') =>
    pgTool('pg_ctl', [
      '-D',
      dir,
      '-l',
      path.join(root, `${path.basename(dir)}.log`),
      '-w',
      '-t',
      '30',
      ...(action === 'stop' ? ['-m', 'immediate'] : []),
      action,
    ])
  const destroy = async () => {
    for (const dir of started.reverse()) await ctl(dir, 'stop').catch(() => undefined)
    fs.rmSync(root, { recursive: true, force: true })
  }
  try {
    // initdb's pg_hba.conf with trust admits replication connections from 127.0.0.1.
    await pgTool('initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ])
    // Throwaway clusters: durability is not what is tested, speed is.
    fs.appendFileSync(
      path.join(primaryDir, 'postgresql.auto.conf'),
      [
        `port = ${primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${root}'`,
        'fsync = off',
        'full_page_writes = off',
        'max_connections = 60',
        'shared_buffers = 32MB',
        '',
      ].join('\n'),
    )
    await ctl(primaryDir, 'start')
    started.push(primaryDir)
    await pgTool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ])
    fs.appendFileSync(
      path.join(replicaDir, 'postgresql.auto.conf'),
      [`port = ${replicaPort}`, `recovery_min_apply_delay = '${options.applyDelayMs}ms'`, ''].join('\n'),
    )
    await ctl(replicaDir, 'start')
    started.push(replicaDir)
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` })
    await admin.connect()
    try {
      await admin.query(`create database ${options.database}`)
    } finally {
      await admin.end()
    }
  } catch (error) {
    await destroy()
    throw error
  }
  const url = (port: number) => `postgres://postgres@127.0.0.1:${port}/${options.database}`
  return {
    primaryUrl: url(primaryPort),
    replicaUrl: url(replicaPort),
    stopReplica: () => ctl(replicaDir, 'stop').then(() => undefined),
    startReplica: () => ctl(replicaDir, 'start').then(() => undefined),
    destroy,
  }
}
