import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import {
  freshAccounts,
  invoice,
  invoicesOf,
  orderFor,
  orderInvoiceable,
  runCycle,
  seedInvoicingCatalog,
} from './invoicing-fixtures.ts'

const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-invoice-pdfs-'))
const t = useTestApp({ env: { EXPORT_DIR: exportDir } })
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'obol-pdf-text-'))

beforeAll(async () => {
  await seedInvoicingCatalog(t)
  const put = (path: string, body: unknown) => created(t, 'PUT', `/api/v1/${path}`, body, 200)
  await put('sellers/MAIN', {
    description: 'Obol Démo SAS',
    address1: '12 rue de la Monnaie',
    zipCode: '75001',
    city: 'Paris',
    vatNo: 'FR40123456789',
  })
})
afterAll(() => {
  fs.rmSync(exportDir, { recursive: true, force: true })
  fs.rmSync(scratch, { recursive: true, force: true })
})

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** GET …/pdf as the admin, or with `token`: the status, content type and raw bytes. */
async function pdfOf(id: number, token = t.adminToken) {
  const response = await t.app.server.inject({
    method: 'GET',
    url: `/api/v1/invoices/${id}/pdf`,
    headers: { authorization: `Bearer ${token}` },
  })
  return {
    status: response.statusCode,
    type: String(response.headers['content-type']),
    disposition: String(response.headers['content-disposition']),
    bytes: response.rawPayload,
    json: () => response.json<{ errorCode: string }>(),
  }
}

let texts = 0
/** The text of a PDF (of its pages `first` to `last`), by poppler's pdftotext, spaces kept as laid out. */
function textOf(bytes: Buffer, pages: { first?: number; last?: number } = {}): string {
  const file = path.join(scratch, `document-${++texts}.pdf`)
  fs.writeFileSync(file, bytes)
  const range = [...(pages.first ? ['-f', String(pages.first)] : []), ...(pages.last ? ['-l', String(pages.last)] : [])]
  return execFileSync('pdftotext', ['-layout', ...range, file, '-'], { encoding: 'utf8' })
}

function pageCount(bytes: Buffer): number {
  const file = path.join(scratch, `document-${++texts}.pdf`)
  fs.writeFileSync(file, bytes)
  return Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1])
}

/**
 * The reddish pixels of the middle of a PDF's first page, rendered at 20 dpi by pdftoppm: where the DRAFT mark lies
 * across the page (the text of a diagonal mark does not come out of pdftotext reliably; its ink does).
 */
function markInk(bytes: Buffer): number {
  const file = path.join(scratch, `document-${++texts}.pdf`)
  fs.writeFileSync(file, bytes)
  execFileSync('pdftoppm', ['-r', '20', '-f', '1', '-l', '1', '-singlefile', file, `${file}-page`])
  const ppm = fs.readFileSync(`${file}-page.ppm`)
  const header = /^P6\s+(\d+)\s+(\d+)\s+\d+\s/.exec(ppm.subarray(0, 40).toString('latin1'))!
  const [width, height] = [Number(header[1]), Number(header[2])]
  let reddish = 0
  for (let y = Math.floor(height / 3); y < (2 * height) / 3; y++)
    for (let x = Math.floor(width / 4); x < (3 * width) / 4; x++) {
      const at = header[0].length + 3 * (y * width + x)
      if (ppm[at]! - Math.max(ppm[at + 1]!, ppm[at + 2]!) > 10) reddish++
    }
  return reddish
}

/** Waits until the PDF job stored an invoice's document (polling the invoice, 20 s at most): the invoice. */
async function storedPdfOf(id: number): Promise<any> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const found = await invoice(t, id)
    if (found.pdf.available) return found
    if (Date.now() > deadline) throw new Error(`the PDF of invoice ${id} was not stored: ${JSON.stringify(found.pdf)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A FULL_AUTOMATIC run of a fresh account with an address: its one validated invoice. */
async function validatedInvoice(name: string, options: { items?: number; oneOrder?: boolean } = {}) {
  const { cycle, accounts } = await freshAccounts(t, name)
  await created(
    t,
    'PUT',
    `/api/v1/billingAccounts/${accounts[0]}`,
    { address1: 'Friedrichstraße 7', address2: 'Aufgang B', zipCode: '10117', city: 'Berlin' },
    200,
  )
  await created(t, 'PUT', `/api/v1/customers/C_${name}`, { vatNo: 'DE300000211' }, 200)
  // Separate orders make a line per item; one order's items are a line per operation with disableAggregation.
  if (options.oneOrder)
    await orderInvoiceable(t, { fee: true, items: options.items ?? 0, account: accounts[0], user: `UA_${name}` })
  else await orderFor(t, accounts[0]!, { fee: true, items: options.items ?? 3 })
  const run = await runCycle(t, cycle, {
    processType: 'FULL_AUTOMATIC',
    ...(options.oneOrder ? { disableAggregation: true } : {}),
  })
  return invoice(t, (await invoicesOf(t, run.id))[0].id)
}

describe('the PDF of a validated invoice', () => {
  it('is rendered by the job after validation, stored under EXPORT_DIR with its SHA-256, and served as application/pdf', async () => {
    const validated = await validatedInvoice('PDF')
    const stored = await storedPdfOf(validated.id)
    expect(stored.pdf.sha256).toMatch(/^[0-9a-f]{64}$/)
    const file = path.join(exportDir, 'invoices', '2026', `${validated.invoiceNumber}.pdf`)
    expect(sha256(fs.readFileSync(file))).toBe(stored.pdf.sha256)

    const served = await pdfOf(validated.id)
    expect(served.status).toBe(200)
    expect(served.type).toBe('application/pdf')
    expect(served.disposition).toBe(`inline; filename="${validated.invoiceNumber}.pdf"`)
    expect(served.bytes.subarray(0, 5).toString()).toBe('%PDF-')
    expect(sha256(served.bytes)).toBe(stored.pdf.sha256)

    const text = textOf(served.bytes)
    for (const expected of [
      'Invoice',
      validated.invoiceNumber,
      // Seller and customer, their addresses and VAT numbers.
      'Obol Démo SAS',
      '12 rue de la Monnaie',
      '75001 Paris',
      'VAT no. FR40123456789',
      'Account PDF',
      'Friedrichstraße 7',
      '10117 Berlin',
      'VAT no. DE300000211',
      // Dates, period, currency.
      'Invoice date',
      '2026-12-01',
      'Due date',
      '2026-12-31',
      'Currency',
      'EUR',
      // Lines.
      'Monthly fee',
      'Small item',
    ])
      expect(text).toContain(expected)
    expect(text).toMatch(/Monthly fee\s+1\s+100\.00\s+20 %\s+100\.00/)
    expect(text).toMatch(/Small item\s+1\s+0\.05\s+5\.5 %\s+0\.05/)
    // The breakdown per rate, then net, tax and gross: the stored amounts, formatted as money.
    expect(text).toMatch(/TAX_05_5\s+5\.5 %\s+0\.15\s+0\.01/)
    expect(text).toMatch(/TAX_20\s+20 %\s+100\.00\s+20\.00/)
    expect(text).toMatch(/Total without tax\s+100\.15 EUR/)
    expect(text).toMatch(/Tax\s+20\.01 EUR/)
    expect(text).toMatch(/Total\s+120\.16 EUR/)
    expect(text).not.toMatch(/draft/i)
    expect(markInk(served.bytes)).toBe(0)
  })

  it('renders the same bytes again when the stored file is gone or altered, and stores them back', async () => {
    const validated = await validatedInvoice('PDF_AGAIN', { items: 1 })
    const { pdf } = await storedPdfOf(validated.id)
    const file = path.join(exportDir, 'invoices', '2026', `${validated.invoiceNumber}.pdf`)
    const first = fs.readFileSync(file)
    fs.rmSync(file)
    const rendered = await pdfOf(validated.id)
    expect(rendered.status).toBe(200)
    expect(Buffer.compare(rendered.bytes, first)).toBe(0)
    expect(fs.readFileSync(file).equals(first)).toBe(true)
    fs.writeFileSync(file, Buffer.concat([first, Buffer.from('tampered')]))
    const again = await pdfOf(validated.id)
    expect(Buffer.compare(again.bytes, first)).toBe(0)
    expect(sha256(fs.readFileSync(file))).toBe(pdf.sha256)
    expect((await invoice(t, validated.id)).pdf).toEqual(pdf)
  })

  it('runs 60 lines over several pages, each repeating the header and the table titles, the totals on the last', async () => {
    const validated = await validatedInvoice('PDF_LONG', { items: 59, oneOrder: true })
    expect(validated.lines).toHaveLength(60)
    const served = await pdfOf(validated.id)
    const pages = pageCount(served.bytes)
    expect(pages).toBeGreaterThanOrEqual(3)
    const first = textOf(served.bytes, { first: 1, last: 1 })
    expect(first).toContain('BILL TO')
    expect(first).not.toContain('Total without tax')
    expect(first).toContain(`page 1 of ${pages}`)
    for (let page = 2; page <= pages; page++) {
      const text = textOf(served.bytes, { first: page, last: page })
      expect(text).toContain(`Invoice ${validated.invoiceNumber} (continued)`)
      expect(text).toContain(`page ${page} of ${pages}`)
      if (page < pages || text.includes('Small item')) expect(text).toMatch(/Description\s+Quantity\s+Unit price/)
    }
    const last = textOf(served.bytes, { first: pages, last: pages })
    // 100.00 + 59 × 0.05 = 102.95 net; 20.00 + round(2.95 × 5.5 %) = 20.16 of tax.
    expect(last).toMatch(/Total\s+123\.11 EUR/)
    // Every line printed once: the fee and the 59 items.
    const all = textOf(served.bytes)
    expect(all.match(/Small item/g)).toHaveLength(59)
    expect(all.match(/Monthly fee/g)).toHaveLength(1)
  })
})

describe('the PDF of an invoice not validated', () => {
  it('is rendered on request with a DRAFT mark and no number, and not stored', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'PDF_DRAFT')
    await orderInvoiceable(t, { fee: true, items: 0, account: accounts[0], user: 'UA_PDF_DRAFT' })
    const run = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    const [draft] = await invoicesOf(t, run.id)
    const served = await pdfOf(draft.id)
    expect(served.status).toBe(200)
    expect(served.type).toBe('application/pdf')
    expect(served.disposition).toBe(`inline; filename="draft-invoice-${draft.id}.pdf"`)
    const text = textOf(served.bytes)
    expect(text).toContain('Draft invoice')
    expect(text).toContain('Not validated: no number yet')
    expect(markInk(served.bytes)).toBeGreaterThan(50)
    expect(text).not.toMatch(/INV-\d{4}/)
    expect(text).toMatch(/Total\s+120\.00 EUR/)
    expect((await invoice(t, draft.id)).pdf).toEqual({ available: false, sha256: null })
    expect(fs.existsSync(path.join(exportDir, 'invoices', '2026'))).toBe(true)
    expect(fs.readdirSync(path.join(exportDir, 'invoices', '2026')).some((f) => f.startsWith('draft'))).toBe(false)
  })
})

describe('the PDF of a credit note', () => {
  it('names the invoice it corrects and the reason, and is stored once the credit note is validated', async () => {
    const validated = await validatedInvoice('PDF_CREDIT', { items: 0 })
    const issued = await t.request('POST', `/api/v1/invoices/${validated.id}/creditNotes`, {
      reason: 'The March fee was billed twice',
      whole: true,
    })
    expect(issued.status, JSON.stringify(issued.body)).toBe(201)
    const draft = (await pdfOf(issued.body.id)).bytes
    expect(textOf(draft)).toContain('Draft credit note')
    expect(markInk(draft)).toBeGreaterThan(50)
    const note = await t.request('POST', `/api/v1/invoices/${issued.body.id}/validate`)
    expect(note.status).toBe(200)
    const stored = await storedPdfOf(note.body.id)
    const text = textOf((await pdfOf(note.body.id)).bytes)
    expect(text).toContain('Credit note')
    expect(text).toContain(note.body.invoiceNumber)
    expect(note.body.invoiceNumber).toMatch(/^CN-\d{4}-\d{6}$/)
    expect(text).toContain(`Invoice ${validated.invoiceNumber}`)
    expect(text).toContain('The March fee was billed twice')
    expect(text).toMatch(/Total credited\s+120\.00 EUR/)
    expect(text).not.toMatch(/draft/i)
    expect(stored.pdf.sha256).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe('access to a PDF', () => {
  it('needs billing.invoices.view, and hides another seller’s invoice (404)', async () => {
    const validated = await validatedInvoice('PDF_ACCESS', { items: 0 })
    const noRole = await t.tokenWithRoles(['billing.billingRuns.view'])
    const forbidden = await pdfOf(validated.id, noRole)
    expect(forbidden.status).toBe(403)
    expect(forbidden.type).toContain('application/json')
    await created(t, 'POST', '/api/v1/sellers', { code: 'PDF_OTHER_SELLER', tradingCurrency: 'EUR', country: 'FR' })
    const other = await t.tokenWithRoles(['billing.invoices.view'], { sellerCodes: ['PDF_OTHER_SELLER'] })
    const hidden = await pdfOf(validated.id, other)
    expect(hidden.status).toBe(404)
    expect(hidden.json().errorCode).toBe('INVOICE_NOT_FOUND')
    const unknown = await pdfOf(999_999)
    expect(unknown.status).toBe(404)
  })
})
