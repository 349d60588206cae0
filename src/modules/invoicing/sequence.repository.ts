import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { sellerAncestryCte, sellerJoin } from '../accounts/index.ts'
import type { ResetEach } from './sequence.model.ts'

export interface SequenceRow {
  readonly id: number
  readonly seller: string | null
  readonly invoiceType: string
  readonly pattern: string
  readonly resetEach: ResetEach
  /** The counter of the latest period numbered (0 before the first number). */
  readonly currentValue: number
}

const sequenceColumns = sql`q.id, se.code as seller, q.invoice_type as "invoiceType", q.pattern, q.reset_each as "resetEach",
  coalesce((select c.value from invoice_sequence_counter c where c.sequence_id = q.id order by c.period_key desc
    limit 1), 0)::int as "currentValue"`

const rowOf = (r: Omit<SequenceRow, 'id'> & { id: unknown }): SequenceRow => ({ ...r, id: Number(r.id) })

export async function listSequences(db: Db): Promise<SequenceRow[]> {
  const found = await rows<Omit<SequenceRow, 'id'> & { id: unknown }>(
    db,
    sql`select ${sequenceColumns} from invoice_sequence q ${sellerJoin(sql`q.seller_id`, { left: true })}
      order by se.code nulls first, q.invoice_type`,
  )
  return found.map(rowOf)
}

/**
 * The sequence numbering a seller's invoices of a type (`sellerId` null: the tenant default's): its own, else the
 * nearest ancestor's up the seller hierarchy, else the default. `own` tells whether it is the seller's.
 */
export async function effectiveSequence(
  db: Db,
  sellerId: number | null,
  invoiceType: string,
): Promise<SequenceRow & { own: boolean }> {
  const found = await one<Omit<SequenceRow, 'id'> & { id: unknown; depth: number }>(
    db,
    sql`with recursive ${sellerAncestryCte('chain', sql`select ${sellerId}::bigint as origin_id, ${sellerId}::bigint as seller_id`)}
      select ${sequenceColumns}, coalesce(c.depth, 1000) as depth
      from invoice_sequence q ${sellerJoin(sql`q.seller_id`, { left: true })}
      left join chain c on c.seller_id = q.seller_id
      where q.invoice_type = ${invoiceType} and (c.seller_id is not null or q.seller_id is null)
      order by coalesce(c.depth, 1000) limit 1`,
  )
  if (!found) throw new Error(`the tenant default ${invoiceType} sequence is missing`)
  return { ...rowOf(found), own: sellerId === null ? found.seller === null : found.depth === 0 }
}

/** Creates or changes a seller's own sequence (or the default's); returns its id. */
export async function upsertSequence(
  db: Db,
  sellerId: number | null,
  invoiceType: string,
  values: { pattern: string; resetEach: ResetEach },
  actor: string,
): Promise<number> {
  const saved = await one<{ id: unknown }>(
    db,
    sql`insert into invoice_sequence (seller_id, invoice_type, pattern, reset_each, creator)
      values (${sellerId}, ${invoiceType}, ${values.pattern}, ${values.resetEach}, ${actor})
      on conflict (seller_id, invoice_type) do update set pattern = excluded.pattern, reset_each = excluded.reset_each,
        updated = now(), updater = ${actor}
      returning id`,
  )
  return Number(saved!.id)
}

/** The counter of a period, locked (a validation taking numbers waits, and the value read is current). */
export async function lockCounter(db: Db, sequenceId: number, period: string): Promise<number> {
  await db.execute(sql`insert into invoice_sequence_counter (sequence_id, period_key, value)
    values (${sequenceId}, ${period}, 0) on conflict (sequence_id, period_key) do nothing`)
  const found = await one<{ value: unknown }>(
    db,
    sql`select value from invoice_sequence_counter where sequence_id = ${sequenceId} and period_key = ${period}
      for update`,
  )
  return Number(found!.value)
}

export async function setCounter(db: Db, sequenceId: number, period: string, value: number): Promise<void> {
  await db.execute(sql`update invoice_sequence_counter set value = ${value}
    where sequence_id = ${sequenceId} and period_key = ${period}`)
}

export { sellerByCodeAnyCase as sellerIdOf } from '../accounts/index.ts'
