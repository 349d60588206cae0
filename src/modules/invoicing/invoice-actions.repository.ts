import { sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'

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
  await tx.execute(
    sql`update wallet_operation w set status = ${mode === 'REOPEN' ? 'OPEN' : 'CANCELED'},
        billing_run_id = ${mode === 'REOPEN' ? sql`null` : sql`w.billing_run_id`}, invoice_line_id = null
      from invoice_line l join invoice i on i.id = l.invoice_id
      where i.id = ${invoiceId} and w.billing_account_id = i.billing_account_id and w.status = 'BILLED'
        and w.invoice_line_id = l.id`,
  )
  await tx.execute(sql`update invoice set status = 'CANCELLED', updated = now(), updater = ${actor}
    where id = ${invoiceId}`)
}

/** Moves an invoice, its lines and their operations from one run to another (MOVE, §3.2); its status stays. */
export async function moveInvoice(tx: Db, invoiceId: number, fromRunId: number, toRunId: number, actor: string) {
  await tx.execute(
    sql`update wallet_operation w set billing_run_id = ${toRunId}
      from invoice_line l join invoice i on i.id = l.invoice_id
      where i.id = ${invoiceId} and w.billing_account_id = i.billing_account_id and w.status = 'BILLED'
        and w.invoice_line_id = l.id`,
  )
  await tx.execute(sql`update invoice_line set billing_run_id = ${toRunId} where invoice_id = ${invoiceId}`)
  await tx.execute(sql`update invoice set billing_run_id = ${toRunId}, moved_from_run_id = ${fromRunId},
    updated = now(), updater = ${actor} where id = ${invoiceId}`)
}
