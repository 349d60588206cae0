import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import { billingAccountFromItem, sellerAncestryCte } from '../accounts/index.ts'
import { formatNumber, periodKey, type ResetEach } from './sequence.model.ts'

const ids = (values: readonly number[]) => sql`${textArray(values.map(String))}::bigint[]`
const num = (value: unknown) => Number(value)

interface Numbered {
  readonly invoiceId: number
  readonly invoiceDate: string
  readonly sequenceId: number
  readonly pattern: string
  readonly resetEach: ResetEach
}

/**
 * The sequence each invoice takes its number from (§2.5): its seller's for its type, else the nearest ancestor's up
 * the seller hierarchy (20 levels at most: a loop in the hierarchy stops there), else the tenant default.
 */
async function sequencesOf(tx: Db, invoiceIds: readonly number[]): Promise<Map<number, Numbered>> {
  const found = await rows<Record<string, unknown>>(
    tx,
    sql`with recursive ${sellerAncestryCte('chain', sql`select i.id as origin_id, i.seller_id from invoice i where i.id = any(${ids(invoiceIds)})`)}
      select i.id as invoice_id, to_char(i.invoice_date, 'YYYY-MM-DD') as invoice_date, q.id as sequence_id,
        q.pattern, q.reset_each
      from invoice i
      join lateral (
        select q.* from invoice_sequence q
        left join chain c on c.origin_id = i.id and c.seller_id = q.seller_id
        where q.invoice_type = i.invoice_type and (c.seller_id is not null or q.seller_id is null)
        order by coalesce(c.depth, 1000) limit 1
      ) q on true
      where i.id = any(${ids(invoiceIds)})`,
  )
  return new Map(
    found.map((r) => [
      num(r.invoice_id),
      {
        invoiceId: num(r.invoice_id),
        invoiceDate: r.invoice_date as string,
        sequenceId: num(r.sequence_id),
        pattern: r.pattern as string,
        resetEach: r.reset_each as ResetEach,
      },
    ]),
  )
}

/**
 * Takes `count` numbers of a sequence's period, under the counter's row lock, which the validating transaction
 * holds to its end: a concurrent validation waits, and a rolled-back one gives its numbers back. No gap, no reuse.
 * Returns the first number taken.
 */
async function takeNumbers(tx: Db, sequenceId: number, period: string, count: number): Promise<number> {
  await tx.execute(sql`insert into invoice_sequence_counter (sequence_id, period_key, value)
    values (${sequenceId}, ${period}, 0) on conflict (sequence_id, period_key) do nothing`)
  const taken = await one<{ value: unknown }>(
    tx,
    sql`update invoice_sequence_counter set value = value + ${count}
      where sequence_id = ${sequenceId} and period_key = ${period} returning value`,
  )
  return num(taken!.value) - count + 1
}

/**
 * Validates invoices in the order given (a run's: billing account code order), in the caller's transaction: with
 * `computeDates` their invoice date becomes `today` and the due date follows (their account's cycle's delay) before
 * numbering; each takes the next number of its sequence; then, with `generateAO`, its accounting operation (§2.6): a
 * DEBIT for an invoice, a CREDIT for a credit note, of its gross amount, open. Counters are locked in sequence order,
 * so two validations never deadlock on them.
 */
export async function validateInvoices(
  tx: Db,
  invoiceIds: readonly number[],
  options: {
    computeDates: boolean
    today: string
    generateAO: boolean | ((invoiceId: number) => boolean)
    actor: string
  },
): Promise<void> {
  if (invoiceIds.length === 0) return
  if (options.computeDates) {
    await tx.execute(sql`update invoice i set invoice_date = ${options.today}::date,
        due_date = ${options.today}::date + c.due_date_delay
      from ${billingAccountFromItem} join billing_cycle c on c.id = ba.billing_cycle_id
      where i.id = any(${ids(invoiceIds)}) and ba.id = i.billing_account_id`)
  }
  const sequences = await sequencesOf(tx, invoiceIds)
  // Numbers per (sequence, period), handed out in the order of `invoiceIds`.
  const groups = new Map<string, { sequenceId: number; period: string; invoices: Numbered[] }>()
  for (const id of invoiceIds) {
    const numbered = sequences.get(id)
    if (!numbered) throw new Error(`invoice ${id} has no sequence (the tenant default is missing)`)
    const period = periodKey(numbered.resetEach, numbered.invoiceDate)
    const key = `${numbered.sequenceId}\u0000${period}`
    const group = groups.get(key) ?? { sequenceId: numbered.sequenceId, period, invoices: [] }
    group.invoices.push(numbered)
    groups.set(key, group)
  }
  const numbers: { id: number; number: string }[] = []
  const ordered = [...groups.values()].sort((a, b) => a.sequenceId - b.sequenceId || a.period.localeCompare(b.period))
  for (const group of ordered) {
    const first = await takeNumbers(tx, group.sequenceId, group.period, group.invoices.length)
    group.invoices.forEach((invoice, i) =>
      numbers.push({ id: invoice.invoiceId, number: formatNumber(invoice.pattern, invoice.invoiceDate, first + i) }),
    )
  }
  await tx.execute(sql`update invoice i set status = 'VALIDATED', invoice_number = v.number, validated_at = now(),
      updated = now(), updater = ${options.actor}
    from (select unnest(${ids(numbers.map((n) => n.id))}) as id, unnest(${textArray(numbers.map((n) => n.number))}) as number) v
    where i.id = v.id`)
  const generate = options.generateAO
  const withAO = invoiceIds.filter((id) => (typeof generate === 'function' ? generate(id) : generate))
  if (withAO.length > 0) {
    await tx.execute(sql`insert into account_operation (operation_type, direction, customer_account_id, seller_id,
        invoice_id, currency_id, reference, transaction_date, due_date, amount, unmatched_amount, matching_status, creator)
      select i.invoice_type, case when i.invoice_type = 'CREDIT_NOTE' then 'CREDIT' else 'DEBIT' end,
        i.customer_account_id, i.seller_id, i.id, i.currency_id, i.invoice_number, i.invoice_date, i.due_date,
        i.amount_with_tax, i.amount_with_tax, 'O', ${options.actor}
      from invoice i where i.id = any(${ids(withAO)})`)
  }
}
