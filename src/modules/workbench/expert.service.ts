import type { FastifyBaseLogger } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import type { Clock } from '../../kernel/clock.ts'
import type { Database, Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { JobRuntime } from '../../kernel/jobs/job-runtime.ts'
import { defaultPageLimit, pageOf, type PageRequest } from '../../kernel/http/pagination.ts'
import { requireRole, type Principal } from '../../kernel/http/principal.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import { currentPrincipal } from '../iam/index.ts'
import { expertSqlProblem, loadSqlParser } from '../query/index.ts'
import { findSavedQuery, missingExpertRole, type ReportQueryService } from '../reporting/index.ts'
import {
  auditIdOf,
  cancelRequested,
  claimExecution,
  createExecution,
  failOwnOpenRuns,
  failRunsOfDeadInstances,
  findExecution,
  finishExecution,
  listExecutions,
  recordProgress,
  requestCancel,
  type ExpertExecution,
  type ExpertStatus,
} from './expert.repository.ts'
import { expertExportOf } from './expert-export.driver.ts'
import { ExportTooLargeError } from './expert-export.ts'
import { expertStatement, exportFile, lineAndColumn, scheduleJobCode } from './expert.model.ts'
import { queryLimitExceeded } from './governor.ts'
import { closeAudit, openAudit, openGovernedAudit } from './workbench.repository.ts'

export interface ExpertSubmission {
  query?: string | null | undefined
  savedQueryCode?: string | null | undefined
  limit?: number | null | undefined
  format?: string | null | undefined
}

/** Seconds a client refused for too many runs at once is told to wait: about one polling period. */
const CONCURRENCY_RETRY_AFTER_SEC = 2

/** PostgreSQL's SQLSTATE of a statement interrupted by its timeout or by pg_cancel_backend. */
const QUERY_CANCELED = '57014'

/**
 * How often a running export checks whether its cancel was requested: a DELETE cancels the backend at once, but
 * when it came before the statement started (the connection was still opening) this check cancels it then.
 */
const CANCEL_CHECK_MS = 500

/** How often a running run records its rows so far (GET shows them as rowsSoFar). */
const PROGRESS_MS = 250

/** The job runtime's queue of Expert runs: one message per submitted run, sent with its record. */
export const EXPERT_RUN_QUEUE = 'obol-expert-run'

const notFound = (id: number | string) => new AppError('NOT_FOUND', `Expert execution ${id} not found`)

/** `workbench.governor.maxExportMegabytes` counts mebibytes. */
const MEGABYTE = 1024 * 1024

/** A scheduled run that did not start: why, in words that name no data (a job execution's error shows it). */
export interface RefusedRun {
  refused: string
}

/**
 * The database's own message of a failed statement (kept for the run's owner); anything else stays generic. A
 * SQLSTATE is five digits or capitals and no class of them begins with E; system errors (EPERM, EPIPE, EROFS…) do,
 * and their messages name server paths, which the record must not show.
 */
function databaseMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code
  return error instanceof Error && typeof code === 'string' && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code)
    ? error.message
    : 'An unexpected error occurred while running the query'
}

/**
 * Expert mode: native SQL vetted (keyword rules and PostgreSQL's parse tree), governed (per-minute slots shared
 * with Deep, `maxConcurrentAsyncPerUser` open runs per user across instances), audited, then run after the answer
 * by a worker instance (a message of the job runtime's queue, sent with the record): `COPY (...) TO STDOUT` as the Expert role (billing data only), read-only, with the async statement timeout, into
 * `{exportDir}/exports/queryStudio/<user>/<yyyy-MM-dd>/expert-<id>.csv`. Records live in the database, so any
 * instance serves status, download (shared export storage) and cancel (pg_cancel_backend by the run's tag).
 */
export function createExpertService(deps: {
  db: Db
  bookkeeping: Db
  database: Database
  clock: Clock
  exportDir: string
  instanceId: string
  log: FastifyBaseLogger
  outbox: Outbox
  jobs: JobRuntime
}) {
  /** Runs under way in this process (a queued message handled here, or a scheduled run). */
  const active = new Map<number, Promise<void>>()
  /** Runs of this process, aborted by a cancel or the shutdown: on PGlite the export stops at its next batch. */
  const aborts = new Map<number, AbortController>()
  let stopping = false
  /** Where runs write their CSV, by the database's driver; as many runs at once as it takes. */
  const exporter = expertExportOf(deps.database)
  const tag = (id: number) => `obol-expert-${id}`

  /**
   * A submitted run's message, on whichever worker instance takes it: woken at the submitting commit, as many at once
   * as the export takes (8 on a server, 1 on PGlite). A message reaching an instance that is stopping goes back to the
   * queue (retried on another instance, or here after a restart); a duplicate finds its run taken and does nothing.
   */
  deps.jobs.defineQueue<{ executionId: number }>({
    name: EXPERT_RUN_QUEUE,
    concurrency: exporter.capacity,
    wakeAtCommit: true,
    async handle({ executionId }) {
      if (stopping) throw new Error('this instance is stopping: the run is left to another')
      const running: Promise<void> = run(executionId)
        .catch((error: unknown) => deps.log.error({ err: error, execution: executionId }, 'Expert run failed'))
        .finally(() => active.delete(executionId))
      active.set(executionId, running)
      await running
    },
  })

  async function run(id: number): Promise<void> {
    const claimed = await claimExecution(deps.db, id, deps.instanceId)
    if (!claimed) return
    const started = deps.clock.now()
    const settings = await cachedTenantSettings(deps.db)
    // The record names the file under the export root; only this process resolves it to a server path.
    const relative = exportFile(claimed.username, claimed.startDate, settings.timeZone, id)
    const file = path.join(deps.exportDir, relative)
    const partial = `${file}.part`
    const maxMegabytes = settings.governorMaxExportMegabytes
    const abort = new AbortController()
    aborts.set(id, abort)
    let status: ExpertStatus = 'SUCCESS'
    let lineCount: number | null = null
    let error: string | null = null
    // Rows so far, written at most every PROGRESS_MS (the last count waits for the next batch or the end).
    let progressAt = 0
    let progressWrite: Promise<void> = Promise.resolve()
    const progress = (rowsSoFar: number) => {
      const now = Date.now()
      if (now - progressAt < PROGRESS_MS) return
      progressAt = now
      progressWrite = progressWrite
        .then(() => recordProgress(deps.db, id, rowsSoFar))
        .catch((failure: unknown) => deps.log.warn({ err: failure, execution: id }, 'Expert progress not recorded'))
    }
    const watch =
      deps.database.kind === 'postgres'
        ? setInterval(() => {
            cancelRequested(deps.db, id)
              .then((asked) => (asked ? exporter.cancel(tag(id)) : false))
              .catch(() => undefined)
          }, CANCEL_CHECK_MS)
        : undefined
    try {
      await fs.promises.mkdir(path.dirname(file), { recursive: true })
      lineCount = await exporter.exportCsv(
        {
          text: claimed.statement,
          kind: /^\s*explain\b/i.test(claimed.statement) ? 'explain' : 'select',
          statementTimeoutMs: settings.governorMaxQueryDurationAsyncSec * 1000,
          tag: tag(id),
          maxBytes: maxMegabytes * MEGABYTE,
          signal: abort.signal,
          onProgress: progress,
        },
        partial,
        // On a replica that has replayed the submitter's last write (a scheduled run has none to wait for).
        { subject: claimed.readerSubject },
      )
      await fs.promises.rename(partial, file)
    } catch (failure) {
      await fs.promises.rm(partial, { force: true })
      const code = (failure as { code?: unknown }).code
      // Interrupted: by the timeout, or by a cancel (finishExecution then records CANCELLED).
      status = code === QUERY_CANCELED ? 'TIMEOUT' : 'FAILED'
      error =
        failure instanceof ExportTooLargeError
          ? `The export passed ${maxMegabytes} MB, the most one file may hold ` +
            '(tenant setting workbench.governor.maxExportMegabytes): no file is kept'
          : databaseMessage(failure)
      if (status === 'FAILED') deps.log.warn({ err: failure, execution: id }, 'Expert query failed')
    } finally {
      clearInterval(watch)
      aborts.delete(id)
      await progressWrite
    }
    const durationMs = deps.clock.now().getTime() - started.getTime()
    const recorded = await finishExecution(deps.db, deps.outbox, id, {
      status,
      lineCount,
      durationMs,
      filePath: status === 'SUCCESS' ? relative : null,
      error,
    })
    if (recorded !== 'SUCCESS') await fs.promises.rm(file, { force: true })
    if (recorded && claimed.auditId !== null) {
      await closeAudit(deps.bookkeeping, claimed.auditId, {
        status: recorded,
        ...(recorded === 'SUCCESS' ? { rowCount: lineCount ?? 0 } : {}),
        durationMs,
        ...(error && recorded !== 'CANCELLED' ? { error } : {}),
      })
    }
  }

  async function submit(
    principal: Principal,
    body: ExpertSubmission,
    queries: ReportQueryService,
  ): Promise<{ queryExecutionResultId: number; status: 'ACCEPTED' }> {
    requireRole(principal, 'queryUser')
    if (body.format != null && body.format.toUpperCase() !== 'CSV')
      throw new AppError('INVALID_PARAMETER', `format: expected CSV, got ${body.format}`, {
        details: [{ field: 'format', message: 'expected CSV' }],
      })
    const hasQuery = body.query != null && body.query.trim() !== ''
    const hasCode = body.savedQueryCode != null && body.savedQueryCode.trim() !== ''
    if (hasQuery === hasCode)
      throw new AppError('MISSING_PARAMETER', 'query: give either query or savedQueryCode', {
        details: [{ field: 'query', message: 'give either query or savedQueryCode' }],
      })
    let text = body.query ?? ''
    if (hasCode) {
      const saved = await queries.get(principal, body.savedQueryCode!)
      if (saved.queryType !== 'NATIVE_SQL' || !saved.queryText)
        throw new AppError(
          'INVALID_PARAMETER',
          `savedQueryCode: ${body.savedQueryCode} is a ${saved.queryType} query, not an Expert (NATIVE_SQL) one`,
          { details: [{ field: 'savedQueryCode', message: 'not a NATIVE_SQL query' }] },
        )
      text = saved.queryText
    }
    const at = deps.clock.now()
    const settings = await cachedTenantSettings(deps.db)
    const perMinute = settings.governorMaxQueriesPerMinutePerUser
    const audit = await openGovernedAudit(
      deps.bookkeeping,
      { username: principal.username, mode: 'EXPERT', text, at },
      perMinute,
    )
    const refuse = async (error: AppError): Promise<never> => {
      await closeAudit(deps.bookkeeping, audit.id, { status: 'REFUSED', durationMs: 0, error: error.message })
      throw error
    }
    if (!audit.slot) return refuse(queryLimitExceeded(at, perMinute))
    await loadSqlParser()
    const vetted = expertSqlProblem(text)
    if ('message' in vetted) {
      return refuse(
        new AppError('INVALID_QUERY', vetted.message, {
          position: vetted.offset === undefined ? undefined : lineAndColumn(text, vetted.offset),
        }),
      )
    }
    // The Expert row limit is min(maxRowsAsync, maxRowsSync); a larger requested limit is lowered to it.
    const rowLimit = Math.min(settings.governorMaxRowsAsync, settings.governorMaxRowsSync)
    const limit = Math.min(body.limit ?? rowLimit, rowLimit)
    const maxOpen = settings.governorMaxConcurrentAsyncPerUser
    const id = await createExecution(
      deps.db,
      {
        username: principal.username,
        text,
        statement: expertStatement(text, vetted, limit),
        savedQueryCode: hasCode ? body.savedQueryCode! : undefined,
        readerSubject: principal.subject,
        instanceId: deps.instanceId,
        auditId: audit.id,
        at,
        rowCap: vetted.kind === 'explain' || limit < rowLimit ? null : rowLimit,
      },
      maxOpen,
      // The run's message commits with its record: a worker instance runs it once the answer is sent.
      (tx, created) => deps.jobs.send(tx, EXPERT_RUN_QUEUE, { executionId: created }),
    ).catch(async (error: unknown) => {
      // Nothing was recorded (a job runtime not started: 503): the audit entry ends with the request, not open.
      const reason = error instanceof AppError ? error.message : 'the run could not be queued'
      await closeAudit(deps.bookkeeping, audit.id, { status: 'FAILED', durationMs: 0, error: reason })
      throw error
    })
    if (id === undefined) {
      return refuse(
        new AppError(
          'QUERY_LIMIT_EXCEEDED',
          `At most ${maxOpen} Expert queries queued or running at once per user: retry in ${CONCURRENCY_RETRY_AFTER_SEC} s`,
          { headers: { 'retry-after': String(CONCURRENCY_RETRY_AFTER_SEC) } },
        ),
      )
    }
    return { queryExecutionResultId: id, status: 'ACCEPTED' }
  }

  /**
   * Why a schedule may not run its query now, or undefined. The schedule must be this query's (its job instance is
   * the query's, made for the query of this id: a query saved again under the code does not inherit it), the query
   * still NATIVE_SQL, and its owner, read as they are now (their groups at this firing, not a token's), an enabled
   * user holding queryUser and queryExpert. Their sellers do not narrow Expert SQL, which bypasses row security.
   */
  async function scheduleRefusal(
    jobCode: string,
    queryId: unknown,
    saved: { id: number; code: string; queryType: string; creator: string },
  ): Promise<string | undefined> {
    if (jobCode !== scheduleJobCode(saved.code) || queryId !== saved.id)
      return 'the schedule was made for an earlier query saved under this code'
    if (saved.queryType !== 'NATIVE_SQL') return 'the saved query is no longer an Expert (NATIVE_SQL) query'
    const owner = await currentPrincipal(deps.db, saved.creator)
    if (!owner) return `its owner ${saved.creator} is no longer an enabled user`
    const missing = missingExpertRole(owner)
    return missing && `its owner ${saved.creator} no longer holds the role ${missing}`
  }

  /**
   * A scheduled run of a saved NATIVE_SQL query, as its owner: the schedule and the owner's current roles checked,
   * the text vetted again, audited (a refusal too, REFUSED with its reason), recorded and run here (the caller is a
   * job execution, which waits for it). Not governed: the schedule's cadence is its owner's choice.
   */
  async function runScheduled(
    jobCode: string,
    parameters: Readonly<Record<string, unknown>>,
  ): Promise<ExpertExecution | RefusedRun> {
    const code = parameters.queryCode
    const saved = typeof code === 'string' ? await findSavedQuery(deps.db, code) : undefined
    if (!saved?.creator) return { refused: 'its saved query no longer exists' }
    const at = deps.clock.now()
    const text = saved.queryText ?? ''
    const auditId = await openAudit(deps.bookkeeping, { username: saved.creator, mode: 'EXPERT', text, at })
    const refuse = async (reason: string, detail = reason): Promise<RefusedRun> => {
      await closeAudit(deps.bookkeeping, auditId, { status: 'REFUSED', durationMs: 0, error: detail })
      return { refused: reason }
    }
    const refusal = await scheduleRefusal(jobCode, parameters.queryId, { ...saved, creator: saved.creator })
    if (refusal) return refuse(refusal)
    await loadSqlParser()
    const vetted = expertSqlProblem(text)
    if ('message' in vetted) return refuse('its text is refused (the query audit says why)', vetted.message)
    const settings = await cachedTenantSettings(deps.db)
    const limit = Math.min(settings.governorMaxRowsAsync, settings.governorMaxRowsSync)
    const id = await createExecution(
      deps.db,
      {
        username: saved.creator,
        text,
        statement: expertStatement(text, vetted, limit),
        savedQueryCode: saved.code,
        readerSubject: null,
        instanceId: deps.instanceId,
        auditId,
        at,
        rowCap: vetted.kind === 'explain' ? null : limit,
      },
      Number.MAX_SAFE_INTEGER,
    )
    await run(id!)
    return (await findExecution(deps.db, id!))!
  }

  /** A run its owner or a query manager may see; anyone else gets 404, as if it did not exist. */
  async function visible(principal: Principal, id: number): Promise<ExpertExecution> {
    const found = await findExecution(deps.db, id)
    if (!found || (found.username !== principal.username && !principal.roles.has('queryManagement'))) throw notFound(id)
    return found
  }

  async function file(principal: Principal, id: number): Promise<{ path: string; size: number }> {
    const found = await visible(principal, id)
    if (found.endDate === null) throw new AppError('INVALID_STATE', `Expert execution ${id} is still running`)
    if (found.status !== 'SUCCESS' || !found.filePath)
      throw new AppError('NOT_FOUND', `Expert execution ${id} ended ${found.status ?? 'without a result'}: no file`)
    // Records name their file under the export root (an absolute path is one written before they did).
    const file = path.resolve(deps.exportDir, found.filePath)
    try {
      const stat = await fs.promises.stat(file)
      return { path: file, size: stat.size }
    } catch {
      throw new AppError('NOT_FOUND', `The file of Expert execution ${id} is no longer available`)
    }
  }

  async function cancel(principal: Principal, id: number): Promise<ExpertExecution> {
    const found = await visible(principal, id)
    const outcome = await requestCancel(deps.db, deps.outbox, id)
    if (outcome === 'finished')
      throw new AppError('INVALID_STATE', `Expert execution ${id} has already ended ${found.status ?? ''}`.trim())
    if (outcome === 'ended') {
      const auditId = await auditIdOf(deps.db, id)
      if (auditId !== null) await closeAudit(deps.bookkeeping, auditId, { status: 'CANCELLED', durationMs: 0 })
    } else {
      // Whichever instance runs it: its connection is found by the run's tag; a run of this process (on PGlite, the
      // only one) stops at its next batch.
      aborts.get(id)?.abort()
      await exporter.cancel(tag(id))
    }
    return (await findExecution(deps.db, id))!
  }

  /** The stale-instance sweep's part: runs of dead instances end FAILED, their audit entries too. */
  async function sweep(db: Db, selfId: string, staleSeconds: number): Promise<void> {
    for (const ended of await failRunsOfDeadInstances(db, deps.outbox, selfId, staleSeconds)) {
      if (ended.auditId !== null)
        await closeAudit(deps.bookkeeping, ended.auditId, {
          status: 'FAILED',
          durationMs: 0,
          error: 'the instance running this query stopped before it finished',
        })
    }
  }

  /** On shutdown: running statements are cancelled, and whatever is still open ends FAILED. */
  async function stop(): Promise<void> {
    stopping = true
    // Ended first, so the interrupted statements are not recorded as timeouts.
    await failOwnOpenRuns(deps.db, deps.outbox, deps.instanceId).catch(() => undefined)
    for (const abort of aborts.values()) abort.abort()
    await Promise.allSettled([...active.keys()].map((id) => exporter.cancel(tag(id))))
    await Promise.allSettled([...active.values()])
  }

  return {
    submit,
    runScheduled,
    get: visible,
    /** A page of the caller's runs, newest first, paged as every list (`pageOf`). */
    async list(principal: Principal, request: PageRequest) {
      const page = pageOf(request, await defaultPageLimit(deps.db))
      return { ...(await listExecutions(deps.db, principal.username, page)), ...page }
    },
    file,
    cancel,
    sweep,
    stop,
    /** Where exports are written: records name their files relative to it. */
    exportDir: deps.exportDir,
    /** Runs under way in this process (tests and shutdown). */
    get pending() {
      return active.size
    },
  }
}

export type ExpertService = ReturnType<typeof createExpertService>
