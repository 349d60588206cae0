import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError } from '../../kernel/errors.ts'
import { defaultPageLimit, pageOf } from '../../kernel/http/pagination.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { addDays, dayIn, firstWholeDayFrom } from '../../kernel/time-zone.ts'
import { parseDates } from '../billing-runs/index.ts'
import { rateRecurringChargesOf } from '../ordering/index.ts'
import { invoiceMachine, type InvoiceTrigger } from './bill-run.machine.ts'
import { applyRules, computeTotals, reportInvoices, type BillRunChain } from './bill-run-chain.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import * as runs from './bill-run.repository.ts'
import * as actions from './invoice-actions.repository.ts'
import { billOperations } from './invoice-lines.repository.ts'
import * as invoices from './invoice.repository.ts'
import * as views from './invoice-views.repository.ts'
import type { AccountOperationQuery, InvoiceListQuery, PreviewBody } from './invoicing.schemas.ts'

const notFound = (id: number) => new AppError('INVOICE_NOT_FOUND', `Invoice ${id} not found`)

/** Carries the preview's result out of its transaction, which it rolls back: a preview persists nothing. */
class PreviewRollback extends Error {
  readonly result: { lastTransactionDate: string; invoiceDate: string; invoices: unknown[] }
  constructor(result: PreviewRollback['result']) {
    super('invoice preview rolled back')
    this.result = result
  }
}

/** A record of the preview's rolled-back transaction has no id: it never existed. */
function withoutIds(invoice: unknown): unknown {
  const record = invoice as Record<string, unknown> & { lines?: Record<string, unknown>[] }
  return {
    ...record,
    id: null,
    billRun: null,
    lines: (record.lines ?? []).map((line) => ({
      ...line,
      id: null,
      billRun: null,
      invoice: null,
      discountedLine: null,
    })),
  }
}

/** Invoices: reading them, a person's validate, cancel and move (§3.2), and the invoice preview (§1). */
export function createInvoiceService(deps: { db: Db; clock: Clock; chain: BillRunChain; outbox: Outbox }) {
  const { db, clock, chain, outbox } = deps

  async function view(tx: Db, id: number, caller: Caller): Promise<unknown> {
    const found = (await views.findInvoices(tx, { id }, caller.sellerCodes, { withLines: true }))[0]
    if (!found) throw notFound(id)
    return views.withInvoiceActions(found)
  }

  /**
   * Runs a person's action on an invoice under its run's lock then its own (the lock order of the chain): refused by
   * the invoice machine in one place (409 INVOICE_VALIDATED, INVALID_INVOICE_STATE), and while a step of its run is
   * running. Another seller's invoice does not exist for the caller.
   */
  async function act(
    id: number,
    caller: Caller,
    trigger: InvoiceTrigger,
    work: (tx: Db, invoice: invoices.InvoiceRow, run: runs.RunRow | undefined) => Promise<void>,
  ): Promise<unknown> {
    return withTransaction(db, async (tx) => {
      const seen = await invoices.invoiceRow(tx, id)
      if (!seen || (caller.sellerCodes !== null && !caller.sellerCodes.includes(seen.sellerCode))) throw notFound(id)
      const run = seen.billingRunId === null ? undefined : await runs.lockRun(tx, seen.billingRunId)
      const invoice = await invoices.invoiceRow(tx, id, true)
      if (!invoice) throw notFound(id)
      // Moved meanwhile to another run: its lock is not the one held; the client retries.
      if (invoice.billingRunId !== seen.billingRunId)
        throw new AppError('INVALID_INVOICE_STATE', `Invoice ${id} was moved to another bill run meanwhile: retry`)
      invoiceMachine.next(invoice.status, trigger)
      if (run && run.step !== null)
        throw new AppError(
          'INVALID_INVOICE_STATE',
          `Invoice ${id}: its bill run ${run.id} is running step ${run.step}; retry when it ends`,
        )
      await work(tx, invoice, run)
      if (run) await chain.settle(tx, (await runs.lockRun(tx, run.id))!)
      return view(tx, id, caller)
    })
  }

  return {
    async list(query: InvoiceListQuery, caller: Caller) {
      const page = pageOf(query, await defaultPageLimit(db))
      const filter: views.InvoiceFilter = {
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.invoiceType === undefined ? {} : { invoiceType: query.invoiceType }),
        ...(query.billRun === undefined ? {} : { billRun: query.billRun }),
        ...(query.billingAccount === undefined ? {} : { billingAccount: query.billingAccount }),
        ...(query.seller === undefined ? {} : { seller: query.seller }),
        ...(query.invoiceDateFrom === undefined ? {} : { invoiceDateFrom: query.invoiceDateFrom }),
        ...(query.invoiceDateTo === undefined ? {} : { invoiceDateTo: query.invoiceDateTo }),
        ...(query.search === undefined ? {} : { search: query.search }),
      }
      // One snapshot for the page and its total: runs create invoices concurrently.
      return withTransaction(
        db,
        async (tx) => ({
          total: await views.countInvoices(tx, filter, caller.sellerCodes),
          ...page,
          data: await views.findInvoices(tx, filter, caller.sellerCodes, { page }),
        }),
        { isolation: 'repeatable read', accessMode: 'read only' },
      )
    },

    get: (id: number, caller: Caller) => view(db, id, caller),

    /** Validates one invoice now (§3.2): its number, dates, accounting operation; the rules are not run again. */
    validate: (id: number, caller: Caller) =>
      act(id, caller, 'validate', async (tx, invoice, run) => {
        const { timeZone } = await readTenantSettings(tx)
        const original =
          invoice.originalInvoiceId === null ? undefined : await invoices.invoiceRow(tx, invoice.originalInvoiceId)
        const originRun =
          run ?? (original?.billingRunId == null ? undefined : await runs.lockRun(tx, original.billingRunId))
        await chain.validate(tx, [invoice.id], {
          // An invoice of no run (a credit note) is dated the day it is validated, the day it is issued.
          computeDates: run ? run.computeDatesAtValidation : true,
          today: dayIn(clock.now(), timeZone),
          // A credit note gets its accounting operation when its original's run generated them (§2.6).
          generateAO: originRun?.generateAO ?? false,
          actor: caller.username,
        })
        await reportInvoices(tx, outbox, 'invoice.validated', [invoice.id], { status: invoice.status })
      }),

    cancel: (id: number, mode: 'REOPEN' | 'CANCEL', caller: Caller) =>
      act(id, caller, 'cancel', async (tx, invoice) => {
        await actions.cancelInvoice(tx, invoice.id, mode, caller.username)
        await reportInvoices(tx, outbox, 'invoice.cancelled', [invoice.id], { status: invoice.status })
      }),

    /** Moves a suspect or rejected invoice into its cycle's next run (created on demand with the same options). */
    move: (id: number, caller: Caller) =>
      act(id, caller, 'move', async (tx, invoice, run) => {
        if (!run) throw new AppError('INVALID_INVOICE_STATE', `Invoice ${id} belongs to no bill run: it cannot move`)
        await chain.moveInvoice(tx, run, invoice.id)
      }),

    /**
     * The invoices the next bill run would make for one billing account (§1, §4): the recurring periods rating would
     * rate up to the last transaction date are rated, then the run's own statements bill the account — lines, invoices,
     * totals, rules — in a transaction that is rolled back. Nothing persists; the same code, not a second one.
     */
    async preview(code: string, body: PreviewBody, caller: Caller) {
      const account = await views.visibleBillingAccount(db, code, caller.sellerCodes)
      if (!account) throw new AppError('ENTITY_NOT_FOUND', `Billing account ${code} not found`)
      try {
        await withTransaction(db, async (tx) => {
          const { timeZone } = await readTenantSettings(tx)
          const dates = parseDates(body, ['lastTransactionDate', 'invoiceDate'] as const, timeZone)
          const cycle = await runs.cycleOf(tx, account.billingCycleId)
          const fireTime = (await runs.nextFiringOfCycle(tx, account.billingCycleId)) ?? clock.now()
          const lastTransactionDate =
            dates.lastTransactionDate ?? addDays(fireTime, cycle.lastTransactionDateDelay, timeZone)
          const invoiceDate = dates.invoiceDate ?? addDays(fireTime, cycle.invoiceDateDelay, timeZone)
          const cutoff = firstWholeDayFrom(lastTransactionDate, timeZone)
          // The periods ended by the last transaction date's day, as the recurring job rates them on that day.
          await rateRecurringChargesOf(tx, account.id, dayIn(lastTransactionDate, timeZone), 'InvoicePreview')
          const [runId] = await runs.insertBillRuns(tx, [
            {
              description: 'invoice preview',
              billingCycleId: account.billingCycleId,
              processType: 'MANUAL',
              lastTransactionDate,
              invoiceDate,
              rejectAutoAction: null,
              suspectAutoAction: null,
              generateAO: false,
              computeDatesAtValidation: false,
              ignoreOrders: cycle.ignoreOrders,
              ignoreSubscriptions: cycle.ignoreSubscriptions,
              dateAggregation: cycle.dateAggregation,
              discountAggregation: cycle.discountAggregation,
              disableAggregation: cycle.disableAggregation,
              scheduleCode: null,
              firingId: null,
              creator: caller.username,
            },
          ])
          await billOperations(tx, runId!, [account.id], cutoff, {
            ...cycle,
            dateAggregation: cycle.dateAggregation as 'NONE' | 'DAY' | 'WEEK' | 'MONTH',
          })
          const { touched } = await invoices.attachInvoices(
            tx,
            runId!,
            [account.id],
            dayIn(invoiceDate, timeZone),
            cycle.dueDateDelay,
            caller.username,
          )
          await computeTotals(tx, touched)
          await applyRules(tx, touched)
          const found = await views.findInvoices(tx, { billRun: runId! }, null, { withLines: true })
          throw new PreviewRollback({
            lastTransactionDate: lastTransactionDate.toISOString(),
            invoiceDate: dayIn(invoiceDate, timeZone),
            invoices: found.map(withoutIds),
          })
        })
      } catch (error) {
        if (error instanceof PreviewRollback) return error.result
        throw error
      }
      throw new Error('the invoice preview did not roll back')
    },

    accountOperations: async (query: AccountOperationQuery, caller: Caller) => {
      const page = pageOf(query, await defaultPageLimit(db))
      const found = await views.findAccountOperations(
        db,
        {
          ...(query.customerAccount === undefined ? {} : { customerAccount: query.customerAccount }),
          ...(query.invoice === undefined ? {} : { invoice: query.invoice }),
        },
        caller.sellerCodes,
        page,
      )
      return { ...found, ...page }
    },
  }
}

export type InvoiceService = ReturnType<typeof createInvoiceService>
