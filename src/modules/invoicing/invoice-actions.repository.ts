import { sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { moveOperationsOfLines, releaseOperationsOfLines, type BilledLines } from '../ordering/index.ts'

/** The lines of an invoice, as the operations they billed are found by. */
const linesOf = (invoiceId: number): BilledLines => ({
  from: sql`invoice_line l join invoice i on i.id = l.invoice_id`,
  where: sql`i.id = ${invoiceId}`,
  billingAccountId: sql`i.billing_account_id`,
  lineId: sql`l.id`,
})

/**
 * Cancels an invoice (§3.2): CANCELLED, its lines kept as the record of what it billed; its billed operations become
 * OPEN again (REOPEN: a later run bills them) or CANCELED (CANCEL), and no longer name a line.
 */
export async function cancelInvoice(
  tx: Db,
  invoiceId: number,
  mode: 'REOPEN' | 'CANCEL',
  actor: string,
): Promise<void> {
  await releaseOperationsOfLines(tx, linesOf(invoiceId), mode)
  await tx.execute(sql`update invoice set status = 'CANCELLED', updated = now(), updater = ${actor}
    where id = ${invoiceId}`)
}

/** Moves an invoice, its lines and their operations from one run to another (MOVE, §3.2); its status stays. */
export async function moveInvoice(tx: Db, invoiceId: number, fromRunId: number, toRunId: number, actor: string) {
  await moveOperationsOfLines(tx, linesOf(invoiceId), toRunId)
  await tx.execute(sql`update invoice_line set billing_run_id = ${toRunId} where invoice_id = ${invoiceId}`)
  await tx.execute(sql`update invoice set billing_run_id = ${toRunId}, moved_from_run_id = ${fromRunId},
    updated = now(), updater = ${actor} where id = ${invoiceId}`)
}
