import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { JobRuntime } from '../../kernel/jobs/job-runtime.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { BillRunStarter } from '../billing-runs/index.ts'
import { BILL_RUN_QUEUE, createBillRunChain } from './bill-run-chain.ts'
import { createBillRunService } from './bill-run.service.ts'
import { createCreditNoteService } from './credit-note.service.ts'
import { createInvoiceService } from './invoice.service.ts'
import { createInvoicePdfService, INVOICE_PDF_QUEUE } from './invoice-pdf.service.ts'
import { registerInvoicingRoutes } from './invoicing.routes.ts'
import { createRuleService } from './rule.service.ts'
import { createSequenceService } from './sequence.service.ts'

export { invoiceTotals, type InvoiceTotals, type RateSum } from './invoice-totals.ts'
export { BILL_RUN_QUEUE } from './bill-run-chain.ts'

/** Billing accounts a batch transaction of the chain works on: bounded memory, short locks. */
const BATCH_SIZE = { pglite: 100, postgres: 500 }

/**
 * Invoicing: the bill run chain (one transition table, bill-run.machine.ts) run by the job runtime in batches of
 * billing accounts on any instance; invoices, their totals rule, validation rules, sequences, accounting
 * operations, credit notes, the invoice preview, and invoice PDFs rendered by the job runtime after validation.
 */
export function createInvoicingModule(deps: {
  db: Db
  clock: Clock
  jobs: JobRuntime
  actorOf: ActorOf
  databaseKind: 'pglite' | 'postgres'
  /** EXPORT_DIR: invoice PDFs are stored under `invoices/`. */
  exportDir: string
  batchSize?: number
  outbox: Outbox
}) {
  // Several messages for one run are harmless: each handler works under the run's lock and stops when it waits.
  const send = (tx: Db, runId: number) => deps.jobs.send(tx, BILL_RUN_QUEUE, { billRunId: runId })
  const pdfs = createInvoicePdfService({ db: deps.db, exportDir: deps.exportDir, outbox: deps.outbox })
  deps.jobs.defineQueue<{ invoiceIds: number[] }>({
    name: INVOICE_PDF_QUEUE,
    handle: (data, context) => pdfs.renderQueued(data.invoiceIds, context.signal),
  })
  const chain = createBillRunChain({
    db: deps.db,
    clock: deps.clock,
    outbox: deps.outbox,
    send,
    // One message per validating transaction (a run's batch, a person's validate): its invoices, rendered in turn.
    queuePdfs: (tx, invoiceIds) => deps.jobs.send(tx, INVOICE_PDF_QUEUE, { invoiceIds }),
    batchSize: deps.batchSize ?? BATCH_SIZE[deps.databaseKind],
  })
  deps.jobs.defineQueue<{ billRunId: number }>({
    name: BILL_RUN_QUEUE,
    handle: (data, context) => chain.process(data.billRunId, context.signal),
  })
  const billRuns = createBillRunService({ db: deps.db, chain, send, outbox: deps.outbox })
  const invoices = createInvoiceService({ db: deps.db, clock: deps.clock, chain, outbox: deps.outbox })
  const creditNotes = createCreditNoteService({ db: deps.db, clock: deps.clock, outbox: deps.outbox })
  const rules = createRuleService({ db: deps.db })
  const sequences = createSequenceService({ db: deps.db, clock: deps.clock })
  /** What billing run schedules need: the runs a firing creates, started in its transaction. */
  const starter: BillRunStarter = { create: billRuns.createRuns, views: billRuns.views }
  return {
    billRuns,
    invoices,
    chain,
    starter,
    routes: (app: FastifyInstance) =>
      registerInvoicingRoutes(app, { billRuns, invoices, creditNotes, pdfs, rules, sequences, actorOf: deps.actorOf }),
  }
}
