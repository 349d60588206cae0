import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { isRetryable, withTransaction } from '../../kernel/db/transaction.ts'
import { AppError } from '../../kernel/errors.ts'
import { cachedTenantSettings, readTenantSettings } from '../../kernel/settings.ts'
import { dayIn, firstWholeDayFrom } from '../../kernel/time-zone.ts'
import {
  autoActionOf,
  billRunMachine,
  startsAtOnce,
  STEP_FROM,
  type AutoAction,
  type BillRunStep,
  type BillRunTrigger,
} from './bill-run.machine.ts'
import * as runs from './bill-run.repository.ts'
import { billOperations, OperationsMoved } from './invoice-lines.repository.ts'
import * as invoices from './invoice.repository.ts'
import { invoiceTotals } from './invoice-totals.ts'
import { validateInvoices } from './numbering.repository.ts'
import { checkInvoice, parseRuleCondition, ruleApplies } from './validation-rule.model.ts'
import * as actions from './invoice-actions.repository.ts'
import { invoiceEventObjects } from './invoice-views.repository.ts'
import type { Outbox } from '../../kernel/events/index.ts'

/** Where the chain's work is handed to the job runtime: a message names a run whose step is to be worked on. */
export const BILL_RUN_QUEUE = 'obol-bill-run'

export interface ChainDeps {
  readonly db: Db
  readonly clock: Clock
  readonly outbox: Outbox
  /** Puts a run's message in the bill run queue inside the transaction that started its step. */
  send(tx: Db, runId: number): Promise<void>
  /** Queues the rendering of validated invoices' PDFs inside the transaction that validated them. */
  queuePdfs(tx: Db, invoiceIds: readonly number[]): Promise<void>
  /** Billing accounts (or invoices) per batch transaction. */
  readonly batchSize: number
  readonly actor?: string
}

const ACTOR = 'BillRunJob'

/** What one batch transaction did: more batches to run, or nothing left for now (waiting, done, or not ours). */
type BatchOutcome = 'more' | 'idle'

/**
 * Recomputes the totals of invoices by the totals rule (invoice-totals.ts) from their lines, with the
 * prices-including-tax setting in force now, and writes them with their tax breakdown.
 */
export async function computeTotals(tx: Db, invoiceIds: readonly number[]): Promise<void> {
  const { pricesIncludeTax } = await readTenantSettings(tx)
  const rated = await invoices.invoiceRates(tx, invoiceIds)
  await invoices.writeTotals(
    tx,
    rated.map((r) => ({
      invoiceId: r.invoiceId,
      totals: invoiceTotals(r.rates, pricesIncludeTax, r.minorUnits),
      periodStart: r.periodStart,
      periodEnd: r.periodEnd,
    })),
  )
}

/**
 * Checks drafts against the validation rules (§2.4) and records each verdict. Invoices moved in keep their status:
 * a person decides them. Returns the verdicts.
 */
export async function applyRules(tx: Db, invoiceIds: readonly number[]) {
  const drafts = (await invoices.draftFacts(tx, invoiceIds)).filter(
    (d) => d.movedFromRunId === null && ['DRAFT', 'SUSPECT', 'REJECTED'].includes(d.status),
  )
  if (drafts.length === 0) return []
  const rules = (await invoices.activeRules(tx)).map((rule) => ({ rule, formula: parseRuleCondition(rule.condition) }))
  const verdicts = drafts.map((d) => ({
    invoiceId: d.invoiceId,
    verdict: checkInvoice(
      rules.filter((r) => ruleApplies(r.rule, d.invoiceType, d.invoiceDate)),
      d.facts,
    ),
  }))
  await invoices.writeVerdicts(tx, verdicts)
  return verdicts
}

/**
 * Reports invoices (invoice.created, .validated, .cancelled…) in the caller's transaction, each as its resource shows
 * it now, in one statement.
 */
export async function reportInvoices(
  tx: Db,
  outbox: Outbox,
  type: string,
  ids: readonly number[],
  previous?: Record<string, unknown>,
): Promise<void> {
  const objects = await invoiceEventObjects(tx, ids)
  await outbox.emitMany(
    tx,
    type,
    'invoice',
    objects.map((o) => ({
      aggregate: { id: o.id },
      object: o.object,
      sellerId: o.sellerId,
      ...(previous ? { previous } : {}),
    })),
  )
}

/** Runs a chain step's batch as one transaction, again when a race or a deadlock rolled it back. */
function inBatch<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return withTransaction(db, work, { retryOn: (e) => isRetryable(e) || e instanceof OperationsMoved, attempts: 5 })
}

export function createBillRunChain(deps: ChainDeps) {
  const { db, clock } = deps
  const actor = deps.actor ?? ACTOR

  /** Moves a run by `trigger` (the machine's table) and starts the step out of its new state when it starts at once. */
  async function move(tx: Db, run: runs.RunRow, trigger: BillRunTrigger): Promise<void> {
    const status = billRunMachine.next(run.status, trigger)
    // Leaving NEW (its lines exist, or it is cancelled): the cycle's next run waiting for its lines may start.
    if (run.status === 'NEW') {
      const next = await runs.nextPendingRun(tx, run)
      if (next !== undefined) await deps.send(tx, next)
    }
    const final = status === 'VALIDATED' || status === 'CANCELLED'
    const step = !final && startsAtOnce(status, run.processType) ? (STEP_FROM[status] ?? null) : null
    await runs.updateRun(
      tx,
      run.id,
      {
        status,
        step,
        cursor: null,
        progressDone: 0,
        progressTotal: step === null ? 0 : await stepTotal(tx, { ...run, status }, step),
        ...(step === 'VALIDATING' ? { validationRequested: true } : {}),
        ...(final ? { ended: true } : {}),
        lastError: null,
      },
      actor,
    )
    const [view] = await runs.findBillRuns(tx, { ids: [run.id] })
    await deps.outbox.emit(tx, {
      type: 'bill_run.status_changed',
      aggregate: { type: 'bill_run', id: run.id },
      object: view,
      previous: { status: run.status },
    })
  }

  /** The billing accounts (or invoices, when validating) a step will work through, for its progress. */
  async function stepTotal(tx: Db, run: runs.RunRow, step: BillRunStep): Promise<number> {
    switch (step) {
      case 'CREATING_INVOICE_LINES':
        return runs.countCycleAccounts(tx, run.billingCycleId)
      case 'CREATING_INVOICES':
        return runs.countAccountsWithLooseLines(tx, run.id)
      case 'VALIDATING':
        return invoices.countValidatable(tx, run.id, autoValidated(run))
      case 'CANCELLING':
        return runs.countAccountsToCancel(tx, run.id)
    }
  }

  const autoValidated = (run: runs.RunRow) => ({
    suspect: autoActionOf(run.suspectAutoAction) === 'AUTOMATIC_VALIDATION',
    rejected: autoActionOf(run.rejectAutoAction) === 'AUTOMATIC_VALIDATION',
  })

  /** The lines step's batch: the next billing accounts of the cycle, their OPEN operations billed into lines. */
  async function linesBatch(tx: Db, run: runs.RunRow): Promise<BatchOutcome> {
    // A cycle's lines steps go one at a time, oldest first: the older run, once its lines exist, sends this one's.
    if (await runs.olderRunPending(tx, run)) return 'idle'
    const after = run.cursor === null ? 0 : Number(run.cursor)
    const accounts = await runs.cycleAccounts(tx, run.billingCycleId, after, deps.batchSize)
    if (accounts.length === 0) {
      await move(tx, run, (await runs.hasWork(tx, run.id)) ? 'linesCreated' : 'nothingToBill')
      return 'more'
    }
    const { timeZone } = await cachedTenantSettings(tx)
    const billed = await billOperations(tx, run.id, accounts, firstWholeDayFrom(run.lastTransactionDate, timeZone), run)
    await runs.updateRun(
      tx,
      run.id,
      {
        cursor: String(accounts.at(-1)),
        addProgress: accounts.length,
        addLines: billed.lines,
        addOperations: billed.operations,
        started: true,
      },
      actor,
    )
    return 'more'
  }

  /** The invoices step's batch: invoices for the lines of the next accounts, totals, rules, auto actions. */
  async function invoicesBatch(tx: Db, run: runs.RunRow): Promise<BatchOutcome> {
    const accounts = await invoices.accountsWithLooseLines(tx, run.id, deps.batchSize)
    if (accounts.length === 0) {
      const waiting = await invoices.waitingRejected(tx, run.id, autoValidated(run).rejected)
      await move(tx, run, waiting > 0 ? 'invoicesRejected' : 'invoicesCreated')
      return 'more'
    }
    const { timeZone } = await cachedTenantSettings(tx)
    const invoiceDate = dayIn(run.invoiceDate, timeZone)
    const { touched, created } = await invoices.attachInvoices(
      tx,
      run.id,
      accounts,
      invoiceDate,
      run.dueDateDelay,
      actor,
    )
    await computeTotals(tx, touched)
    const verdicts = await applyRules(tx, touched)
    await reportInvoices(tx, deps.outbox, 'invoice.created', created)
    for (const { invoiceId, verdict } of verdicts) {
      if (verdict.status === 'DRAFT') continue
      const action = autoActionOf(verdict.status === 'SUSPECT' ? run.suspectAutoAction : run.rejectAutoAction)
      await applyAutoAction(tx, run, invoiceId, action)
    }
    await runs.updateRun(tx, run.id, { addProgress: accounts.length, started: true }, actor)
    return 'more'
  }

  /** The auto action of a failing invoice (§3.2): moved, cancelled (its operations OPEN or CANCELED), or left. */
  async function applyAutoAction(tx: Db, run: runs.RunRow, invoiceId: number, action: AutoAction): Promise<void> {
    switch (action) {
      case 'MOVE':
        await moveInvoice(tx, run, invoiceId)
        return
      case 'CANCEL':
      case 'CANCEL_RT':
        await actions.cancelInvoice(tx, invoiceId, action === 'CANCEL' ? 'REOPEN' : 'CANCEL', actor)
        await reportInvoices(tx, deps.outbox, 'invoice.cancelled', [invoiceId])
        return
      case 'AUTOMATIC_VALIDATION':
      case 'MANUAL_ACTION':
        return
    }
  }

  /**
   * Moves an invoice and its lines into the cycle's next run: the run's next one while it is still NEW (its lines
   * not billed yet), else a new NEW run with the same options, started at once. Locks that run after this one
   * (runs are locked in id order).
   */
  async function moveInvoice(tx: Db, run: runs.RunRow, invoiceId: number): Promise<number> {
    let nextId: number | undefined
    if (run.nextBillRunId !== null) {
      const next = await runs.lockRun(tx, run.nextBillRunId)
      if (next?.status === 'NEW') nextId = next.id
    }
    if (nextId === undefined) {
      ;[nextId] = await runs.insertBillRuns(tx, [
        {
          description: run.description,
          billingCycleId: run.billingCycleId,
          processType: run.processType,
          lastTransactionDate: run.lastTransactionDate,
          invoiceDate: run.invoiceDate,
          rejectAutoAction: run.rejectAutoAction,
          suspectAutoAction: run.suspectAutoAction,
          generateAO: run.generateAO,
          computeDatesAtValidation: run.computeDatesAtValidation,
          ignoreOrders: run.ignoreOrders,
          ignoreSubscriptions: run.ignoreSubscriptions,
          dateAggregation: run.dateAggregation,
          discountAggregation: run.discountAggregation,
          disableAggregation: run.disableAggregation,
          scheduleCode: run.scheduleCode,
          firingId: null,
          creator: actor,
          originBillRunId: run.id,
        },
      ])
      await runs.updateRun(tx, run.id, { nextBillRunId: nextId! }, actor)
      await deps.send(tx, nextId!)
      // Later moves of this step reuse it: the run row read at the batch's start does not know it yet.
      ;(run as { nextBillRunId: number | null }).nextBillRunId = nextId!
    }
    await actions.moveInvoice(tx, invoiceId, run.id, nextId!, actor)
    return nextId!
  }

  /** The validation step's batch: the next invoices to validate in billing account code order, numbered. */
  async function validationBatch(tx: Db, run: runs.RunRow): Promise<BatchOutcome> {
    const ids = await invoices.validatableInvoices(tx, run.id, autoValidated(run), deps.batchSize)
    if (ids.length === 0) {
      await runs.updateRun(tx, run.id, { step: null, cursor: null }, actor)
      await settle(tx, { ...run, step: null, validationRequested: true })
      return 'more'
    }
    const { timeZone } = await cachedTenantSettings(tx)
    await validate(tx, ids, {
      computeDates: run.computeDatesAtValidation,
      today: dayIn(clock.now(), timeZone),
      generateAO: run.generateAO,
      actor,
    })
    await reportInvoices(tx, deps.outbox, 'invoice.validated', ids)
    await runs.updateRun(tx, run.id, { addProgress: ids.length, started: true }, actor)
    return 'more'
  }

  /**
   * Validates invoices (§3.2: numbers, dates, accounting operations, `validateInvoices`) and queues their PDFs, in
   * the caller's transaction: a run's batch and a person's validate alike. A rolled-back validation queues nothing;
   * a committed one is rendered even if this instance dies right after.
   */
  async function validate(tx: Db, invoiceIds: readonly number[], options: Parameters<typeof validateInvoices>[2]) {
    await validateInvoices(tx, invoiceIds, options)
    if (invoiceIds.length > 0) await deps.queuePdfs(tx, invoiceIds)
  }

  /** The cancel step's batch: the next accounts' operations given back or cancelled, their lines and drafts deleted. */
  async function cancelBatch(tx: Db, run: runs.RunRow): Promise<BatchOutcome> {
    const accounts = await runs.accountsToCancel(tx, run.id, deps.batchSize)
    if (accounts.length === 0) {
      await move(tx, run, 'cancelled')
      return 'more'
    }
    await runs.cancelAccounts(tx, run.id, accounts, run.cancelMode ?? 'REOPEN')
    await runs.updateRun(tx, run.id, { addProgress: accounts.length }, actor)
    return 'more'
  }

  /**
   * After a person acted on an invoice of a run (or its validation step ended): a REJECTED run whose last rejected
   * invoice is resolved goes back to DRAFT_INVOICES; a DRAFT_INVOICES run whose validation was asked and that has no
   * invoice left to decide is VALIDATED.
   */
  async function settle(tx: Db, run: runs.RunRow): Promise<void> {
    if (run.step !== null) return
    if (run.status === 'REJECTED') {
      if ((await invoices.waitingRejected(tx, run.id, autoValidated(run).rejected)) === 0) {
        await move(tx, run, 'rejectionsResolved')
        if (startsAtOnce('DRAFT_INVOICES', run.processType)) await deps.send(tx, run.id)
      }
      return
    }
    if (run.status === 'DRAFT_INVOICES' && run.validationRequested) {
      const counts = await invoices.statusCounts(tx, run.id)
      const open = (counts.get('DRAFT') ?? 0) + (counts.get('SUSPECT') ?? 0) + (counts.get('REJECTED') ?? 0)
      if (open === 0) await move(tx, run, 'validated')
    }
  }

  /** One batch of whatever step the run is in, in one transaction under the run's lock. */
  async function batch(runId: number): Promise<BatchOutcome> {
    return inBatch(db, async (tx) => {
      // Another instance holding the run works on it; it goes on until the step ends.
      const run = await runs.lockRun(tx, runId, { skipLocked: true })
      if (!run || run.step === null) return 'idle'
      switch (run.step) {
        case 'CREATING_INVOICE_LINES':
          return linesBatch(tx, run)
        case 'CREATING_INVOICES':
          return invoicesBatch(tx, run)
        case 'VALIDATING':
          return validationBatch(tx, run)
        case 'CANCELLING':
          return cancelBatch(tx, run)
      }
    })
  }

  return {
    /**
     * Works on a run until it waits for a person, is done, or another instance holds it: batch after batch, each its
     * own transaction, so a crash loses at most the batch in progress (rolled back) and the next message resumes at
     * the last committed one. A failing batch records its message as the run's `lastError` and throws (the job
     * runtime retries the message).
     */
    async process(runId: number, signal?: AbortSignal): Promise<void> {
      for (;;) {
        if (signal?.aborted) return
        let outcome: BatchOutcome
        try {
          outcome = await batch(runId)
        } catch (error) {
          const message = error instanceof AppError ? error.message : 'a step of the bill run failed; it is retried'
          await withTransaction(db, (tx) => runs.updateRun(tx, runId, { lastError: message }, actor)).catch(
            () => undefined,
          )
          throw error
        }
        if (outcome === 'idle') return
      }
    },
    move,
    settle,
    validate,
    moveInvoice,
    stepTotal,
    autoValidated,
  }
}

export type BillRunChain = ReturnType<typeof createBillRunChain>
