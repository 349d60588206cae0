import type { Caller } from '../../kernel/caller.ts'
import { createHash, randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Db } from '../../kernel/db/database.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { AppError } from '../../kernel/errors.ts'
import * as documents from './invoice-document.repository.ts'
import { pdfFileOf, type InvoiceDocument } from './invoice-document.model.ts'
import { renderInvoicePdf } from './invoice-pdf.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { reportInvoices } from './bill-run-chain.ts'
import * as invoices from './invoice.repository.ts'

/** Where validations queue their invoices' PDFs: a message names invoices validated in one transaction. */
export const INVOICE_PDF_QUEUE = 'obol-invoice-pdf'

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** A PDF answered to a client: its bytes and the file name it is offered under. */
export interface PdfAnswer {
  readonly bytes: Buffer
  readonly fileName: string
}

/**
 * Invoice documents (invoicing-events.md §1, §2.3, §7): rendered from stored rows by `renderInvoicePdf`, stored under
 * EXPORT_DIR with their SHA-256 once the invoice is validated, served from storage.
 */
export function createInvoicePdfService(deps: { db: Db; exportDir: string; outbox: Outbox }) {
  const { db, exportDir } = deps

  /** The document's rows, read in one snapshot (an invoice, its lines and taxes as one state). */
  const read = (id: number) =>
    withTransaction(db, (tx) => documents.invoiceDocument(tx, id), {
      isolation: 'repeatable read',
      accessMode: 'read only',
    })

  /** The stored file's bytes when it is there and is the file its SHA-256 names; undefined otherwise. */
  async function intact(stored: { file: string; sha256: string } | undefined): Promise<Buffer | undefined> {
    if (!stored) return undefined
    const bytes = await fs.readFile(path.join(exportDir, stored.file)).catch(() => undefined)
    return bytes && sha256(bytes) === stored.sha256 ? bytes : undefined
  }

  /**
   * The one place a validated invoice's PDF is stored (the job's completion, and a request finding it missing): the
   * file written aside and renamed into place (a reader never sees half of it; two renderings of one invoice write the
   * same bytes), then its path and SHA-256 on the invoice, with `invoice.pdf_ready` in the transaction that records
   * the file (a file stored again, found missing or altered, is reported again).
   */
  async function store(document: InvoiceDocument, bytes: Buffer): Promise<void> {
    const file = pdfFileOf(document.invoiceNumber!, document.invoiceDate)
    const target = path.join(exportDir, file)
    await fs.mkdir(path.dirname(target), { recursive: true })
    const aside = `${target}.${randomUUID()}.tmp`
    await fs.writeFile(aside, bytes)
    await fs.rename(aside, target)
    await withTransaction(db, async (tx) => {
      await documents.recordPdf(tx, document.id, file, sha256(bytes))
      await reportInvoices(tx, deps.outbox, 'invoice.pdf_ready', [document.id])
    })
  }

  /** Renders a validated invoice's PDF and stores it; its bytes. */
  async function renderAndStore(document: InvoiceDocument): Promise<Buffer> {
    const bytes = await renderInvoicePdf(document)
    await store(document, bytes)
    return bytes
  }

  return {
    /**
     * The PDF queue's work: each validated invoice named whose PDF is not stored, or whose file is missing or no
     * longer its SHA-256, is rendered and stored. Idempotent: a message handled again (a crash, a retry) renders only
     * what is still missing.
     */
    async renderQueued(invoiceIds: readonly number[], signal?: AbortSignal): Promise<void> {
      for (const id of invoiceIds) {
        if (signal?.aborted) throw new Error('stopping: the rest of the PDFs are rendered when the message comes back')
        if (await intact(await documents.storedPdf(db, id))) continue
        const document = await read(id)
        if (document?.status === 'VALIDATED') await renderAndStore(document)
      }
    },

    /**
     * `GET /api/v1/invoices/{id}/pdf`: a validated invoice's stored PDF (checked against its SHA-256; rendered and
     * stored when missing or altered); any other invoice rendered now, with its DRAFT or CANCELLED mark and no number,
     * and not stored. Another seller's invoice does not exist for the caller.
     */
    async pdf(id: number, caller: Caller): Promise<PdfAnswer> {
      const notFound = () => new AppError('INVOICE_NOT_FOUND', `Invoice ${id} not found`)
      const seen = await invoices.invoiceRow(db, id)
      if (!seen || (caller.sellerCodes !== null && !caller.sellerCodes.includes(seen.sellerCode))) throw notFound()
      if (seen.status === 'VALIDATED') {
        const stored = await documents.storedPdf(db, id)
        const bytes = await intact(stored)
        if (bytes) return { bytes, fileName: path.basename(stored!.file) }
      }
      const document = await read(id)
      if (!document) throw notFound()
      if (document.status === 'VALIDATED')
        return {
          bytes: await renderAndStore(document),
          fileName: path.basename(pdfFileOf(document.invoiceNumber!, document.invoiceDate)),
        }
      const kind = document.invoiceType === 'CREDIT_NOTE' ? 'credit-note' : 'invoice'
      return { bytes: await renderInvoicePdf(document), fileName: `draft-${kind}-${id}.pdf` }
    },
  }
}

export type InvoicePdfService = ReturnType<typeof createInvoicePdfService>
