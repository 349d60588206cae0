import { stateMachine } from '../../kernel/state-machine.ts'

export const BILL_RUN_STATUSES = [
  'NEW',
  'INVOICE_LINES_CREATED',
  'DRAFT_INVOICES',
  'REJECTED',
  'VALIDATED',
  'CANCELLED',
] as const
export type BillRunStatus = (typeof BILL_RUN_STATUSES)[number]

export type ProcessType = 'AUTOMATIC' | 'MANUAL' | 'FULL_AUTOMATIC'
export type AutoAction = 'MOVE' | 'CANCEL' | 'CANCEL_RT' | 'AUTOMATIC_VALIDATION' | 'MANUAL_ACTION'

/** The work a run does between two states, in batches of billing accounts; null while it waits or once it is done. */
export type BillRunStep = 'CREATING_INVOICE_LINES' | 'CREATING_INVOICES' | 'VALIDATING' | 'CANCELLING'

/**
 * What moves a run: the end of a step (`linesCreated`, `nothingToBill`, `invoicesCreated`, `invoicesRejected`,
 * `validated`), a person resolving the last rejected invoice (`rejectionsResolved`), and `cancel`'s end.
 */
export type BillRunTrigger =
  | 'linesCreated'
  | 'nothingToBill'
  | 'invoicesCreated'
  | 'invoicesRejected'
  | 'validated'
  | 'rejectionsResolved'
  | 'cancelled'

/**
 * The bill run chain (invoicing-events.md §3.1), the one table every status change of a run reads: the job that
 * advances runs, `advance`, `cancel` and the invoice actions that resolve a run's last rejected invoice.
 */
export const billRunMachine = stateMachine<BillRunStatus, BillRunTrigger>({
  kind: 'Bill run',
  error: 'INVALID_BILL_RUN_STATE',
  table: {
    NEW: { linesCreated: 'INVOICE_LINES_CREATED', nothingToBill: 'VALIDATED', cancelled: 'CANCELLED' },
    INVOICE_LINES_CREATED: { invoicesCreated: 'DRAFT_INVOICES', invoicesRejected: 'REJECTED', cancelled: 'CANCELLED' },
    DRAFT_INVOICES: { validated: 'VALIDATED', cancelled: 'CANCELLED' },
    REJECTED: { rejectionsResolved: 'DRAFT_INVOICES', cancelled: 'CANCELLED' },
    VALIDATED: {},
    CANCELLED: {},
  },
})

/** The step that leads out of a state: what the job or a person starts there. */
export const STEP_FROM: Readonly<Partial<Record<BillRunStatus, BillRunStep>>> = {
  NEW: 'CREATING_INVOICE_LINES',
  INVOICE_LINES_CREATED: 'CREATING_INVOICES',
  DRAFT_INVOICES: 'VALIDATING',
}

/**
 * Whether the step out of `status` starts at once (the job) or waits for `advance` (§3.1): the lines always; the
 * invoices under AUTOMATIC and FULL_AUTOMATIC; the validation under FULL_AUTOMATIC only.
 */
export function startsAtOnce(status: BillRunStatus, processType: ProcessType): boolean {
  switch (status) {
    case 'NEW':
      return true
    case 'INVOICE_LINES_CREATED':
      return processType !== 'MANUAL'
    case 'DRAFT_INVOICES':
      return processType === 'FULL_AUTOMATIC'
    default:
      return false
  }
}

/** The states a run can be cancelled from: every state `cancelled` leaves (a validated invoice also forbids it). */
export const CANCELLABLE = billRunMachine.statesFor('cancelled')

/** A run's auto action for a failing invoice: the run's, else MANUAL_ACTION (invoicing-events.md §4). */
export function autoActionOf(action: AutoAction | null): AutoAction {
  return action ?? 'MANUAL_ACTION'
}

export type InvoiceStatus = 'DRAFT' | 'SUSPECT' | 'REJECTED' | 'VALIDATED' | 'CANCELLED'
export type InvoiceTrigger = 'validate' | 'cancel' | 'move' | 'credit'

/**
 * An invoice's states (invoicing-events.md §3.2): a draft, suspect or rejected invoice is validated, cancelled or
 * moved; a validated invoice never changes (409 INVOICE_VALIDATED) and is corrected by a credit note (`credit`
 * leaves it as it is); a cancelled one is done. Only SUSPECT and REJECTED invoices move (MOVE is their auto action; a
 * person may move them too). Only an invoice of type INVOICE is credited: the credit note service checks the type.
 */
export const invoiceMachine = stateMachine<InvoiceStatus, InvoiceTrigger>({
  kind: 'Invoice',
  error: (state) => (state === 'VALIDATED' ? 'INVOICE_VALIDATED' : 'INVALID_INVOICE_STATE'),
  table: {
    DRAFT: { validate: 'VALIDATED', cancel: 'CANCELLED' },
    SUSPECT: { validate: 'VALIDATED', cancel: 'CANCELLED', move: 'SUSPECT' },
    REJECTED: { validate: 'VALIDATED', cancel: 'CANCELLED', move: 'REJECTED' },
    VALIDATED: { credit: 'VALIDATED' },
    CANCELLED: {},
  },
  describe: (state, trigger, allowed) =>
    state === 'VALIDATED'
      ? `Invoice is VALIDATED: a validated invoice never changes (${trigger} refused); issue a credit note to correct it`
      : trigger === 'credit'
        ? `Invoice is ${state}: only a VALIDATED invoice can be credited`
        : `Invoice is ${state}: ${trigger} is not allowed` +
          (allowed.length > 0 ? ` (it allows ${allowed.join(', ')})` : ''),
})

/** What a person may do to a run: the buttons a screen shows, and the only calls that will not be refused. */
export type BillRunAction = 'advance' | 'cancel'

/** What `allowedBillRunActions` reads of a run: as its v1 resource shows it. */
export interface BillRunActionState {
  readonly status: BillRunStatus
  readonly step: BillRunStep | null
  readonly suspectAutoAction: AutoAction | null
  readonly rejectAutoAction: AutoAction | null
  /** Invoices by status (a status without invoice absent). */
  readonly invoices: Readonly<Record<string, number>>
}

/**
 * The actions `advance` and `cancel` accept in a run's present state, in the words of their refusals in the bill run
 * service: `advance` while no step runs, on a MANUAL run's lines (INVOICE_LINES_CREATED) or on drafts waiting to be
 * validated (DRAFT_INVOICES, unless only suspect invoices left to a person remain); `cancel` from every state the
 * machine's `cancelled` leaves, not while it is being cancelled and never once an invoice of the run is validated.
 */
export function allowedBillRunActions(run: BillRunActionState): BillRunAction[] {
  const allowed: BillRunAction[] = []
  const count = (status: InvoiceStatus) => run.invoices[status] ?? 0
  if (run.step === null) {
    if (run.status === 'INVOICE_LINES_CREATED') allowed.push('advance')
    if (run.status === 'DRAFT_INVOICES') {
      const validatable =
        count('DRAFT') > 0 ||
        (autoActionOf(run.suspectAutoAction) === 'AUTOMATIC_VALIDATION' && count('SUSPECT') > 0) ||
        (autoActionOf(run.rejectAutoAction) === 'AUTOMATIC_VALIDATION' && count('REJECTED') > 0)
      // Nothing to validate and no suspect invoice left: advance closes the run as VALIDATED.
      if (validatable || count('SUSPECT') === 0) allowed.push('advance')
    }
  }
  if (CANCELLABLE.includes(run.status) && run.step !== 'CANCELLING' && count('VALIDATED') === 0) allowed.push('cancel')
  return allowed
}

/** What a person may do to an invoice: validate, cancel or move a draft; credit a validated invoice. */
export type InvoiceAction = InvoiceTrigger

/** The invoice machine's moves from its status; `credit` only for an INVOICE (a credit note is not credited). */
export function allowedInvoiceActions(invoice: { status: InvoiceStatus; invoiceType: string }): InvoiceAction[] {
  return invoiceMachine
    .triggersFrom(invoice.status)
    .filter((action) => action !== 'credit' || invoice.invoiceType === 'INVOICE')
}
