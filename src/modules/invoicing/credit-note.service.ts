import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError, type ErrorDetail } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { readTenantSettings } from '../../kernel/settings.ts'
import { dayIn } from '../../kernel/time-zone.ts'
import { readDecimal } from '../pricing/index.ts'
import { invoiceMachine } from './bill-run.machine.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { applyRules, computeTotals, reportInvoices } from './bill-run-chain.ts'
import { partialCredit, type RequestedCredit } from './credit-note.model.ts'
import * as notes from './credit-note.repository.ts'
import * as invoices from './invoice.repository.ts'
import * as views from './invoice-views.repository.ts'
import type { CreditNoteBody } from './invoicing.schemas.ts'

const invalid = (details: ErrorDetail[]) =>
  new AppError('VALIDATION_FAILED', details.map((d) => `${d.field}: ${d.message}`).join('; '), { details })

/** The request's shape beyond its schema: a reason that is not blank, and exactly one of `whole` and `lines`. */
function requestedCredit(body: CreditNoteBody): { whole: true } | { lines: RequestedCredit[] } {
  const problems: ErrorDetail[] = []
  if (body.reason.trim() === '') problems.push({ field: 'reason', message: 'expected a reason, not blank' })
  if (body.whole !== undefined && body.lines !== undefined)
    problems.push({ field: 'whole', message: 'expected either whole: true or lines, not both' })
  if (body.whole === undefined && body.lines === undefined)
    problems.push({ field: 'lines', message: 'expected either whole: true or lines (invoiceLine, amountWithoutTax)' })
  const lines = (body.lines ?? []).map((line, i) => ({
    invoiceLine: line.invoiceLine,
    amountWithoutTax: readDecimal(line.amountWithoutTax, `lines.${i}.amountWithoutTax`, problems),
  }))
  if (problems.length > 0) throw invalid(problems)
  return body.whole
    ? { whole: true }
    : { lines: lines.map((l) => ({ invoiceLine: l.invoiceLine, amountWithoutTax: l.amountWithoutTax! })) }
}

/** Credit notes (invoicing-events.md §1, §2.3, §4): the correction of a validated invoice, an invoice of its own. */
export function createCreditNoteService(deps: { db: Db; clock: Clock; outbox: Outbox }) {
  const { db, clock } = deps
  return {
    /**
     * Issues a draft credit note of a validated invoice, whole or for named lines, its totals by the totals rule
     * (`computeTotals`, the one the bill runs use) and checked by the validation rules of credit notes. What the
     * invoice's credit notes not cancelled total, this one included, may not exceed the invoice's gross (422
     * CREDIT_EXCEEDS_INVOICE): the invoice's row is locked first, so two credit notes of one invoice are decided one
     * after the other, the second seeing the first (each statement reads what committed before it, under read
     * committed). Another seller's invoice does not exist for the caller.
     */
    async create(id: number, body: CreditNoteBody, caller: Caller): Promise<unknown> {
      const request = requestedCredit(body)
      return withTransaction(db, async (tx) => {
        const original = await invoices.invoiceRow(tx, id, true)
        if (!original || (caller.sellerCodes !== null && !caller.sellerCodes.includes(original.sellerCode)))
          throw new AppError('INVOICE_NOT_FOUND', `Invoice ${id} not found`)
        if (original.invoiceType !== 'INVOICE')
          throw new AppError('INVALID_INVOICE_STATE', `Invoice ${id} is a credit note: only an invoice can be credited`)
        invoiceMachine.next(original.status, 'credit')
        const before = await notes.creditBalance(tx, id)
        // A partial credit note reads only the lines it names; a whole one copies them all in SQL.
        const named = 'lines' in request ? request.lines : undefined
        const lines = named
          ? partialCredit(
              await notes.creditableLines(
                tx,
                id,
                named.map((l) => l.invoiceLine),
              ),
              named,
              id,
              before.minorUnits,
            )
          : undefined
        const { timeZone } = await readTenantSettings(tx)
        const noteId = await notes.insertCreditNote(tx, id, {
          today: dayIn(clock.now(), timeZone),
          reason: body.reason.trim(),
          actor: caller.username,
        })
        if (lines) await notes.insertCreditLines(tx, noteId, id, lines)
        else await notes.copyAllLines(tx, noteId, id)
        await computeTotals(tx, [noteId])
        await applyRules(tx, [noteId])
        const after = await notes.creditBalance(tx, id)
        if (money(after.credited).greaterThan(after.invoiced)) {
          const left = money(before.invoiced).minus(before.credited)
          const asked = money(after.credited).minus(before.credited)
          const amount = (value: { toFixed(n: number): string }) =>
            `${value.toFixed(after.minorUnits)} ${after.currency}`
          throw new AppError(
            'CREDIT_EXCEEDS_INVOICE',
            `Invoice ${after.invoiceNumber ?? id} has ${amount(left.isNegative() ? money(0) : left)} left to credit ` +
              `(${amount(money(before.credited))} of ${amount(money(before.invoiced))} credited by credit notes not ` +
              `cancelled); this credit note is ${amount(asked)}`,
          )
        }
        await reportInvoices(tx, deps.outbox, 'credit_note.created', [noteId])
        const [view] = await views.findInvoices(tx, { id: noteId }, caller.sellerCodes, { withLines: true })
        return views.withInvoiceActions(view)
      })
    },
  }
}

export type CreditNoteService = ReturnType<typeof createCreditNoteService>
