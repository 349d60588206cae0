import net from 'node:net'
import type pino from 'pino'
import { ConfigError, loadConfig, type Config } from './kernel/config.ts'
import { openPostgres, type Database } from './kernel/db/database.ts'
import type { DataDirLock } from './embedded/data-dir-lock.ts'
import { openEmbeddedDatabase } from './embedded/embedded-database.ts'
import { migrate } from './kernel/db/migrate.ts'
import { systemClock } from './kernel/clock.ts'
import { JobRuntime } from './kernel/jobs/job-runtime.ts'
import { executionPurgeJob } from './kernel/jobs/execution-purge.job.ts'
import { expertExportPurgeJob, expertScheduledQueryJob } from './modules/workbench/index.ts'
import { recurringRatingJob, walletOperationPartitionJob } from './modules/ordering/index.ts'
import { buildApp } from './app.ts'
import { seedDemo } from './seed.ts'
import { createLogger } from './kernel/logger.ts'

export type ProcessRole = 'all' | 'api' | 'worker'

export interface OpenedDatabase {
  database: Database
  lock: DataDirLock | undefined
  /** A new embedded database was created, migrated and, when asked, seeded by a child process. */
  prepared?: boolean
}

/**
 * PostgreSQL when DATABASE_URL is set, else embedded PGlite under DATA_DIR (one process at a time). With
 * `prepareNew`, a new embedded database is prepared by a child process first (src/embedded/embedded-database.ts).
 */
export async function openDatabase(
  config: Config,
  log: pino.Logger,
  options: { prepareNew?: { demo: boolean } } = {},
): Promise<OpenedDatabase> {
  if (config.databaseUrl)
    return {
      database: openPostgres(config.databaseUrl, {
        max: config.databasePoolMax,
        readUrls: config.databaseReadUrls,
        readMaxLagMs: config.databaseReadMaxLagMs,
      }),
      lock: undefined,
    }
  return openEmbeddedDatabase(config, log, options)
}

export function createJobRuntime(database: Database, config: Config, log: pino.Logger, role: ProcessRole): JobRuntime {
  const runtime = new JobRuntime({
    database,
    clock: systemClock,
    log: log.child({ component: 'jobs' }),
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    instanceStaleAfterMs: config.instanceStaleAfterMs,
    timerPollIntervalMs: config.timerPollIntervalMs,
    worker: role !== 'api',
    roles: role,
  })
  runtime.register(executionPurgeJob)
  runtime.register(walletOperationPartitionJob)
  runtime.register(recurringRatingJob)
  runtime.register(expertExportPurgeJob)
  runtime.register(expertScheduledQueryJob)
  return runtime
}

/** Fails as listen would when HOST:PORT cannot be listened on now (the server listens for real later). */
async function probePort(config: Config): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', (error) => reject(listenError(error, config)))
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () => probe.close(() => resolve()))
  })
}

/** A failed listen, as a configuration error naming the variable to change when it is one. */
function listenError(error: unknown, config: Config): Error {
  const at = `${config.host}:${config.port}`
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigError('PORT', `expected a free port, but ${at} is already in use`)
    case 'EACCES':
      return new ConfigError('PORT', `expected a port this user may open, but listening on ${at} was refused`)
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError('HOST', `expected an address of this machine, but cannot listen on ${config.host}`)
    default:
      return error instanceof Error ? error : new Error(String(error))
  }
}

/** config → database → migrations → jobs → HTTP; SIGINT/SIGTERM drain requests and jobs, then close. */
export async function start(options: { demo: boolean; role: ProcessRole }): Promise<void> {
  const config = loadConfig()
  // A person at a terminal reads lines; a service manager or collector parses JSON.
  const pretty = process.stdout.isTTY
  const log = createLogger(config.logLevel, { pretty })
  // A taken port is found before anything starts: a first start would otherwise print the generated administrator
  // credentials and then stop, and the next start would not print them again.
  if (options.role !== 'worker') await probePort(config)
  const { database, lock, prepared } = await openDatabase(config, log, { prepareNew: { demo: options.demo } })
  if (prepared)
    log.info(
      options.demo
        ? 'new embedded database created, migrated and seeded with the demo data by a child process'
        : 'new embedded database created and migrated by a child process',
    )
  // A failure before the server runs must not leave the lock or the pool behind.
  const abandon = async (error: unknown): Promise<never> => {
    await database.close().catch(() => undefined)
    lock?.release()
    throw error
  }
  const applied = await migrate(database.db).catch(abandon)
  if (applied.length > 0) log.info({ applied }, 'migrations applied')
  if (options.demo) {
    // Idempotent: after the child's seeding, a check that finds the tenant present.
    const seeded = await seedDemo(database.db)
    if (seeded.created || !prepared) log.info(seeded.created ? 'demo data created' : 'demo data already present')
  }
  const jobs = createJobRuntime(database, config, log, options.role)
  await jobs.start().catch(abandon)
  const baseUrl =
    config.publicUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
  const app = await buildApp({
    database,
    clock: systemClock,
    jobs,
    logLevel: config.logLevel,
    logPretty: pretty,
    publicUrl: baseUrl,
    auth: config.auth,
    exportDir: config.exportDir,
    trustProxy: config.trustProxy,
    billRunBatchSize: config.billRunBatchSize,
    webhookPrivateTargets: config.webhookPrivateTargets,
  }).catch(async (error: unknown) => {
    await jobs.stop(1000).catch(() => undefined)
    return abandon(error)
  })
  if (app.bootstrap.ignoredClientSecret) {
    log.warn(
      `OBOL_ADMIN_CLIENT_SECRET is not the secret of ${config.auth.adminClientId}: it is used on a database's first start only, ` +
        `and this one was started before. Use the secret printed then, rotate it (POST /api/v1/clients/${config.auth.adminClientId}/secret), ` +
        'or start on a new DATA_DIR.',
    )
  }
  const generated = app.bootstrap.generated
  if (generated.clientSecret || generated.password) {
    process.stdout.write(
      [
        '',
        'First start: administrator credentials were generated. They are shown this once; store them now.',
        ...(generated.clientSecret
          ? [`  service account  client_id=${generated.clientId!}  client_secret=${generated.clientSecret}`]
          : []),
        ...(generated.password
          ? [`  portal user      username=${generated.username!}  password=${generated.password}`]
          : []),
        '  (set OBOL_ADMIN_CLIENT_SECRET / OBOL_ADMIN_PASSWORD before the first start to choose them)',
        '',
      ].join('\n') + '\n',
    )
  }
  // Billing run schedules fire and prepaid reservations expire on every process that runs jobs (recurring tasks of
  // the job runtime, started with it): each due time fires, each reservation expires, once across them.

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down: draining requests and jobs')
    // Requests and jobs share one budget of SHUTDOWN_TIMEOUT_MS.
    const deadline = performance.now() + config.shutdownTimeoutMs
    const hardStop = setTimeout(() => {
      log.error('shutdown timed out; exiting')
      process.exit(1)
    }, config.shutdownTimeoutMs + 5000)
    hardStop.unref()
    try {
      if (options.role !== 'worker') {
        const { cut } = await app.stop(config.shutdownTimeoutMs)
        if (cut > 0) log.warn({ cut }, 'requests still running after SHUTDOWN_TIMEOUT_MS were cut')
        await app.server.close()
      }
      await jobs.stop(Math.max(0, deadline - performance.now()))
      await database.close()
    } finally {
      lock?.release()
    }
    log.info('stopped')
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  if (options.role !== 'worker') {
    try {
      await app.server.listen({ port: config.port, host: config.host })
    } catch (error) {
      // Nothing was served: stop what started and free the data directory, then say which variable to change.
      stopping = true
      await jobs.stop(0).catch(() => undefined)
      await database.close().catch(() => undefined)
      lock?.release()
      throw listenError(error, config)
    }
    const db = database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'
    process.stdout.write(
      [
        '',
        `Obol is ready (${db}, role ${options.role})`,
        `  Web UI:   ${baseUrl}/ui/`,
        `  API:      ${baseUrl}/api/v1`,
        `  Docs:     ${baseUrl}/api/docs   (OpenAPI: ${baseUrl}/api/openapi.json)`,
        `  Health:   ${baseUrl}/health/ready   Metrics: ${baseUrl}/metrics`,
        '',
      ].join('\n') + '\n',
    )
  } else {
    process.stdout.write(`Obol worker is running (jobs only, instance ${jobs.instanceId})\n`)
  }
}
