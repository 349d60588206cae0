import type { Caller } from '../../kernel/caller.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { defaultPageLimit, pageOf } from '../../kernel/http/pagination.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { addDays } from '../../kernel/time-zone.ts'
import { checkRunOptions, DEFAULT_PROCESS_TYPE, parseDates } from '../billing-runs/index.ts'
import { CANCELLABLE, type BillRunStatus } from './bill-run.machine.ts'
import type { BillRunChain } from './bill-run-chain.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import * as runs from './bill-run.repository.ts'
import * as invoices from './invoice.repository.ts'
import type { BillRunBody, BillRunQuery } from './invoicing.schemas.ts'

const notFound = (id: number) => new AppError('BILL_RUN_NOT_FOUND', `Bill run ${id} not found`)

const refuse = (run: runs.RunRow, message: string) =>
  new AppError('INVALID_BILL_RUN_STATE', `Bill run ${run.id} is ${run.status}: ${message}`)

/** What `advance` would do for a run in this state, in words: the 409's message when it cannot. */
function waitingFor(status: BillRunStatus): string {
  switch (status) {
    case 'NEW':
      return 'its invoice lines are being created; nothing waits for a person'
    case 'INVOICE_LINES_CREATED':
      return 'advance creates its invoices'
    case 'DRAFT_INVOICES':
      return 'advance validates its draft invoices'
    case 'REJECTED':
      return 'its rejected invoices wait for a person: validate, cancel or move each of them'
    case 'VALIDATED':
    case 'CANCELLED':
      return 'it is done; no action changes it'
  }
}

/** Bill runs: one-off creation, the runs a schedule's firing creates, reading, and a person's `advance` and `cancel`. */
export function createBillRunService(deps: {
  db: Db
  chain: BillRunChain
  outbox: Outbox
  send(tx: Db, runId: number): Promise<void>
}) {
  const { db, chain, outbox } = deps

  /** Creates runs in the caller's transaction and hands their lines step to the job runtime there. */
  async function createRuns(tx: Db, values: readonly runs.NewBillRun[]): Promise<number[]> {
    const created = await runs.insertBillRuns(tx, values)
    for (const id of created) await deps.send(tx, id)
    await outbox.emitMany(
      tx,
      'bill_run.created',
      'bill_run',
      (await runs.findBillRuns(tx, { ids: created })).map((run) => ({ aggregate: { id: run.id }, object: run })),
    )
    return created
  }

  async function view(tx: Db, id: number): Promise<runs.BillRunView> {
    const found = (await runs.findBillRuns(tx, { ids: [id] }))[0]
    if (!found) throw notFound(id)
    return found
  }

  return {
    createRuns,
    views: (tx: Db, ids: readonly number[]) => runs.findBillRuns(tx, { ids }),

    /** A one-off bill run for a billing cycle: its dates, options and its own aggregation rules (default the cycle's). */
    async create(body: BillRunBody, actor: Pick<Caller, 'username'>): Promise<runs.BillRunView> {
      return withTransaction(db, async (tx) => {
        const options = checkRunOptions({ ...body, processType: body.processType ?? DEFAULT_PROCESS_TYPE })
        const { timeZone } = await readTenantSettings(tx)
        const dates = parseDates(body, ['lastTransactionDate', 'invoiceDate'] as const, timeZone)
        const cycle = await runs.cycleRules(tx, body.billingCycle)
        if (!cycle) {
          throw validationError([
            { field: 'billingCycle', message: `no billing cycle with code '${body.billingCycle}'` },
          ])
        }
        const now = await runs.databaseNow(tx)
        const [id] = await createRuns(tx, [
          {
            description: body.description ?? null,
            billingCycleId: cycle.id,
            processType: options.processType ?? DEFAULT_PROCESS_TYPE,
            lastTransactionDate: dates.lastTransactionDate ?? addDays(now, cycle.lastTransactionDateDelay, timeZone),
            invoiceDate: dates.invoiceDate ?? addDays(now, cycle.invoiceDateDelay, timeZone),
            rejectAutoAction: options.rejectAutoAction ?? null,
            suspectAutoAction: options.suspectAutoAction ?? null,
            generateAO: body.generateAO ?? false,
            computeDatesAtValidation: body.computeDatesAtValidation ?? false,
            ignoreOrders: body.ignoreOrders ?? cycle.ignoreOrders,
            ignoreSubscriptions: body.ignoreSubscriptions ?? cycle.ignoreSubscriptions,
            dateAggregation: body.dateAggregation ?? cycle.dateAggregation,
            discountAggregation: body.discountAggregation ?? cycle.discountAggregation,
            disableAggregation: body.disableAggregation ?? cycle.disableAggregation,
            scheduleCode: null,
            firingId: null,
            creator: actor.username,
          },
        ])
        return view(tx, id!)
      })
    },

    get: (id: number) => view(db, id),

    /** Newest first; filtered by schedule, billing cycle or status. */
    async list(query: BillRunQuery) {
      const page = pageOf(query, await defaultPageLimit(db))
      const filter: runs.BillRunFilter = {
        ...(query.scheduleCode === undefined ? {} : { scheduleCode: query.scheduleCode }),
        ...(query.billingCycle === undefined ? {} : { billingCycle: query.billingCycle }),
        ...(query.status === undefined ? {} : { status: query.status }),
      }
      // One snapshot for the page and its total: timers insert bill runs concurrently.
      return withTransaction(
        db,
        async (tx) => ({
          total: await runs.countBillRuns(tx, filter),
          ...page,
          data: await runs.findBillRuns(tx, filter, page),
        }),
        { isolation: 'repeatable read', accessMode: 'read only' },
      )
    },

    /**
     * A person moves a run on where it waits for them (§3.1): a MANUAL run's lines become invoices; a run's drafts
     * (and suspect invoices under AUTOMATIC_VALIDATION) are validated. 409 INVALID_BILL_RUN_STATE when nothing waits.
     */
    async advance(id: number, actor: Pick<Caller, 'username'>): Promise<runs.BillRunView> {
      return withTransaction(db, async (tx) => {
        const run = await runs.lockRun(tx, id)
        if (!run) throw notFound(id)
        if (run.step !== null && run.step !== 'CANCELLING')
          throw refuse(run, `step ${run.step} is running; wait for it to end`)
        if (run.step === 'CANCELLING') throw refuse(run, 'it is being cancelled')
        if (run.status === 'INVOICE_LINES_CREATED') {
          await runs.updateRun(
            tx,
            id,
            {
              step: 'CREATING_INVOICES',
              cursor: null,
              progressDone: 0,
              progressTotal: await chain.stepTotal(tx, run, 'CREATING_INVOICES'),
            },
            actor.username,
          )
        } else if (run.status === 'DRAFT_INVOICES') {
          const ready = await invoices.validatableInvoices(tx, id, chain.autoValidated(run), 1)
          if (ready.length === 0) {
            const counts = await invoices.statusCounts(tx, id)
            if ((counts.get('SUSPECT') ?? 0) > 0)
              throw refuse(run, 'its suspect invoices wait for a person: validate, cancel or move each of them')
            // Every invoice was decided one by one: the run is validated now.
            await runs.updateRun(tx, id, { validationRequested: true }, actor.username)
            await chain.settle(tx, { ...run, validationRequested: true })
            return view(tx, id)
          }
          await runs.updateRun(
            tx,
            id,
            {
              step: 'VALIDATING',
              validationRequested: true,
              cursor: null,
              progressDone: 0,
              progressTotal: await chain.stepTotal(tx, run, 'VALIDATING'),
            },
            actor.username,
          )
        } else {
          throw refuse(run, waitingFor(run.status))
        }
        await deps.send(tx, id)
        return view(tx, id)
      })
    },

    /**
     * Cancels a run not yet validated (§3.1): its lines and unvalidated invoices are deleted and their operations
     * become OPEN again (REOPEN) or CANCELED, in batches by the job. A run with a validated invoice: 409.
     */
    async cancel(id: number, mode: 'REOPEN' | 'CANCEL', actor: Pick<Caller, 'username'>): Promise<runs.BillRunView> {
      return withTransaction(db, async (tx) => {
        const run = await runs.lockRun(tx, id)
        if (!run) throw notFound(id)
        if (!CANCELLABLE.includes(run.status)) throw refuse(run, waitingFor(run.status))
        if (run.step === 'CANCELLING') return view(tx, id)
        if (await runs.hasValidatedInvoice(tx, id))
          throw refuse(run, 'it has a validated invoice, which never changes: a run with one cannot be cancelled')
        await runs.updateRun(
          tx,
          id,
          {
            step: 'CANCELLING',
            cancelMode: mode,
            cursor: null,
            progressDone: 0,
            progressTotal: await chain.stepTotal(tx, run, 'CANCELLING'),
          },
          actor.username,
        )
        await deps.send(tx, id)
        return view(tx, id)
      })
    },
  }
}

export type BillRunService = ReturnType<typeof createBillRunService>
