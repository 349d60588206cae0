import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type * as Fontkit from 'fontkit'
import type PDFKit from 'pdfkit'
import {
  formatAmount,
  formatMoney,
  formatPercent,
  formatPeriod,
  formatQuantity,
  formatUnitPrice,
  type InvoiceDocument,
} from './invoice-document.model.ts'

/**
 * DejaVu Sans, embedded (subset to the glyphs used): Latin with every European accent (ł, ő, ş…), Greek and
 * Cyrillic, which the PDF standard fonts' Windows-1252 cannot write.
 */
const FONT_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf')
let fonts: Promise<{ regular: Fontkit.Font; bold: Fontkit.Font }> | undefined
/**
 * The two fonts, read and parsed on the first document and kept for the next ones: a document embeds its own subset
 * of them, so sharing the parsed fonts (and the tables fontkit decodes as it lays text out) changes no byte of any
 * document, and spares each document the parse (docs/performance.md, "Figures behind the code").
 */
const loadFonts = () =>
  (fonts ??= Promise.all([
    import('fontkit'),
    fs.readFile(path.join(FONT_DIR, 'DejaVuSans.ttf')),
    fs.readFile(path.join(FONT_DIR, 'DejaVuSans-Bold.ttf')),
  ]).then(([fontkit, regular, bold]) => ({ regular: fontOf(fontkit, regular), bold: fontOf(fontkit, bold) })))

function fontOf(fontkit: typeof Fontkit, file: Buffer): Fontkit.Font {
  const font = fontkit.create(file)
  if (!('layout' in font)) throw new Error('a font collection where a font was expected')
  return font
}

/** A4 in points, its margins, and where content stops above the footer. */
const PAGE = { width: 595.28, height: 841.89 }
const LEFT = 50
const RIGHT = PAGE.width - 50
const WIDTH = RIGHT - LEFT
const TOP = 50
const CONTENT_BOTTOM = 772
const FOOTER_Y = 800

const INK = '#1f2328'
const MUTED = '#5b6470'
const RULE = '#d0d5db'
const BAND = '#eef1f4'

/** The lines table: description, quantity, unit price, rate, net; the numbers right-aligned. */
const COLUMNS = [
  { key: 'label', title: 'Description', x: LEFT, width: 215, align: 'left' },
  { key: 'quantity', title: 'Quantity', x: LEFT + 220, width: 55, align: 'right' },
  { key: 'unit', title: 'Unit price', x: LEFT + 280, width: 80, align: 'right' },
  { key: 'tax', title: 'Tax rate', x: LEFT + 365, width: 45, align: 'right' },
  { key: 'net', title: 'Net', x: LEFT + 415, width: WIDTH - 415, align: 'right' },
] as const
const CELL_SIZE = 8.5

let pdfKit: Promise<typeof PDFKit> | undefined
/**
 * pdfkit and its font engine (fontkit, in loadFonts) load on the first document, not at start: most processes never
 * render one, and a server at rest should not hold their code (docs/performance.md, Memory).
 */
const loadPdfKit = () => (pdfKit ??= import('pdfkit').then((m) => m.default))

/** A document not validated carries a mark across every page: DRAFT (draft, suspect, rejected) or CANCELLED. */
const watermarkOf = (doc: InvoiceDocument) =>
  doc.status === 'VALIDATED' ? null : doc.status === 'CANCELLED' ? 'CANCELLED' : 'DRAFT'

/** `Invoice`, `Credit note`; one not validated says so in its title too: `Draft invoice`, `Cancelled credit note`. */
function titleOf(doc: InvoiceDocument): string {
  const kind = doc.invoiceType === 'CREDIT_NOTE' ? 'credit note' : 'invoice'
  const mark = watermarkOf(doc)
  const title = mark === null ? kind : `${mark.toLowerCase()} ${kind}`
  return title.charAt(0).toUpperCase() + title.slice(1)
}

/** What the footer and the header of later pages name the document by. */
const referenceOf = (doc: InvoiceDocument) =>
  doc.invoiceNumber === null ? titleOf(doc) : `${titleOf(doc)} ${doc.invoiceNumber}`

/**
 * Renders an invoice or credit note as an A4 PDF (docs/decisions.md, "Invoice documents"). Deterministic: the same
 * document gives the same bytes, its creation date and file identifier taken from `stampedAt`, never the clock.
 * Long labels wrap in their column; lines run over as many pages as they need, each page repeating the header and
 * the table's titles; the tax breakdown and totals close the last page.
 */
export async function renderInvoicePdf(doc: InvoiceDocument): Promise<Buffer> {
  const [PDFDocument, { regular, bold }] = await Promise.all([loadPdfKit(), loadFonts()])
  const pdf = new PDFDocument({
    size: 'A4',
    margins: { top: TOP, left: LEFT, right: PAGE.width - RIGHT, bottom: 20 },
    bufferPages: true,
    autoFirstPage: true,
    pdfVersion: '1.7',
    lang: 'en',
    displayTitle: true,
    info: {
      Title: referenceOf(doc),
      Author: doc.seller.name,
      Subject: `${referenceOf(doc)} to ${doc.billTo.name}`,
      Creator: 'Obol',
      Producer: 'Obol (PDFKit)',
      CreationDate: doc.stampedAt,
      ModDate: doc.stampedAt,
    },
  })
  // Registered by name, not given as the document's default font: pdfkit would then open the font again at every
  // switch to it (its cache misses a font first opened as the default): a long invoice crawled (docs/performance.md, "Figures behind the code").
  // pdfkit takes a parsed fontkit font where its types say a file: it lays text out with that font's own methods.
  pdf.registerFont('regular', regular as unknown as Buffer)
  pdf.registerFont('bold', bold as unknown as Buffer)
  const chunks: Buffer[] = []
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk))
  const ended = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve)
    pdf.on('error', reject)
  })

  let y = firstPageHeader(pdf, doc)
  y = tableHeader(pdf, doc, y)
  for (const line of doc.lines) {
    const height = rowHeight(pdf, line)
    if (y + height > CONTENT_BOTTOM) {
      pdf.addPage()
      y = tableHeader(pdf, doc, laterPageHeader(pdf, doc))
    }
    y = row(pdf, doc, line, y, height)
  }
  if (doc.lines.length === 0) {
    pdf
      .font('regular')
      .fontSize(CELL_SIZE)
      .fillColor(MUTED)
      .text('No lines.', LEFT + 4, y + 6)
    y += 22
  }
  const closing = totalsHeight(doc)
  if (y + 18 + closing > CONTENT_BOTTOM) {
    pdf.addPage()
    y = laterPageHeader(pdf, doc)
  }
  totals(pdf, doc, y + 18)

  const range = pdf.bufferedPageRange()
  for (let i = range.start; i < range.start + range.count; i++) {
    pdf.switchToPage(i)
    footer(pdf, doc, i - range.start + 1, range.count)
    const mark = watermarkOf(doc)
    if (mark) watermark(pdf, mark)
  }
  pdf.end()
  await ended
  return Buffer.concat(chunks)
}

/** Text that never wraps onto a new page by itself: the layout places every piece. */
function put(
  pdf: PDFKit.PDFDocument,
  text: string,
  x: number,
  y: number,
  options: { width: number; align?: 'left' | 'right'; font?: 'regular' | 'bold'; size?: number; color?: string },
): number {
  pdf
    .font(options.font ?? 'regular')
    .fontSize(options.size ?? 9)
    .fillColor(options.color ?? INK)
  const textOptions = { width: options.width, align: options.align ?? 'left', lineGap: 1 }
  const height = pdf.heightOfString(text, textOptions)
  pdf.text(text, x, y, textOptions)
  return y + height
}

function label(pdf: PDFKit.PDFDocument, text: string, x: number, y: number, width: number): number {
  return put(pdf, text.toUpperCase(), x, y, { width, font: 'bold', size: 7, color: MUTED }) + 2
}

/** The seller at the top left, the document's title and facts at the top right, the billed party below. */
function firstPageHeader(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): number {
  const half = WIDTH / 2 - 15
  let left = put(pdf, doc.seller.name, LEFT, TOP, { width: half, font: 'bold', size: 15 }) + 4
  for (const line of doc.seller.address) left = put(pdf, line, LEFT, left, { width: half, color: MUTED })
  if (doc.seller.vatNo) left = put(pdf, `VAT no. ${doc.seller.vatNo}`, LEFT, left, { width: half, color: MUTED })

  const x = RIGHT - half
  let right = put(pdf, titleOf(doc), x, TOP - 2, { width: half, align: 'right', font: 'bold', size: 20 }) + 6
  if (doc.invoiceNumber === null)
    right = put(pdf, 'Not validated: no number yet', x, right, { width: half, align: 'right', color: '#b42318' }) + 2
  const credit = doc.invoiceType === 'CREDIT_NOTE'
  const facts: [string, string | null][] = [
    ['Number', doc.invoiceNumber],
    [credit ? 'Date' : 'Invoice date', doc.invoiceDate],
    // A credit note owes nothing: no due date.
    ['Due date', credit ? null : doc.dueDate],
    ['Period', formatPeriod(doc.periodStart, doc.periodEnd)],
    ['Currency', doc.currency],
  ]
  for (const [name, value] of facts) {
    if (value === null) continue
    put(pdf, name, x, right, { width: 90, color: MUTED })
    right = put(pdf, value, x + 90, right, { width: half - 90, align: 'right', font: 'bold' }) + 1
  }

  let y = Math.max(left, right) + 24
  const boxTop = y
  y = label(pdf, 'Bill to', LEFT + 10, y + 8, half - 20)
  y = put(pdf, doc.billTo.name, LEFT + 10, y, { width: half - 20, font: 'bold', size: 10.5 }) + 1
  if (doc.billTo.customerName && doc.billTo.customerName !== doc.billTo.name)
    y = put(pdf, doc.billTo.customerName, LEFT + 10, y, { width: half - 20 })
  for (const line of doc.billTo.address) y = put(pdf, line, LEFT + 10, y, { width: half - 20 })
  if (doc.billTo.vatNo) y = put(pdf, `VAT no. ${doc.billTo.vatNo}`, LEFT + 10, y, { width: half - 20 })
  y = put(pdf, `Account ${doc.billTo.account}`, LEFT + 10, y, { width: half - 20, color: MUTED }) + 8
  pdf
    .roundedRect(LEFT, boxTop, half, y - boxTop, 4)
    .lineWidth(0.8)
    .strokeColor(RULE)
    .stroke()

  if (!doc.original) {
    // What the customer owes and by when, on a tinted box beside the billed party.
    const due = formatMoney(doc.amountWithTax, doc.minorUnits, doc.currency)
    const size = fitting(pdf, due, half - 20, 16)
    pdf.font('bold').fontSize(size)
    const height = 8 + 11 + pdf.heightOfString(due, { width: half - 20 }) + 4 + 12 + 8
    pdf.roundedRect(x, boxTop, half, height, 4).fill(BAND)
    let r = label(pdf, 'Amount due', x + 10, boxTop + 8, half - 20)
    r = put(pdf, due, x + 10, r + 2, { width: half - 20, font: 'bold', size }) + 2
    put(pdf, `by ${doc.dueDate}`, x + 10, r, { width: half - 20, color: MUTED })
  }
  if (doc.original) {
    let r = label(pdf, 'Corrects', x, boxTop + 8, half)
    r = put(pdf, `Invoice ${doc.original.invoiceNumber ?? '(not numbered)'}`, x, r, { width: half, font: 'bold' })
    r = put(pdf, `of ${doc.original.invoiceDate}`, x, r, { width: half, color: MUTED }) + 8
    if (doc.reason) {
      r = label(pdf, 'Reason', x, r, half)
      r = put(pdf, doc.reason, x, r, { width: half })
    }
    y = Math.max(y, r)
  }
  return y + 22
}

/** Pages after the first: who and which document, the table's titles then follow. */
function laterPageHeader(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): number {
  const half = WIDTH / 2
  const left = put(pdf, doc.seller.name, LEFT, TOP, { width: half, font: 'bold', size: 11 })
  const right = put(pdf, `${referenceOf(doc)} (continued)`, LEFT + half, TOP + 1, {
    width: half,
    align: 'right',
    color: MUTED,
  })
  const y = Math.max(left, right) + 6
  pdf.moveTo(LEFT, y).lineTo(RIGHT, y).lineWidth(0.8).strokeColor(RULE).stroke()
  return y + 14
}

function tableHeader(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, y: number): number {
  pdf.rect(LEFT, y, WIDTH, 18).fill(BAND)
  for (const column of COLUMNS) {
    const title = column.key === 'net' ? `Net (${doc.currency})` : column.title
    put(pdf, title, column.x + (column.align === 'left' ? 4 : 0), y + 5, {
      width: column.width - 4,
      align: column.align,
      font: 'bold',
      size: 7.5,
      color: MUTED,
    })
  }
  return y + 18
}

const cellOptions = (width: number) => ({ width: width - 4, lineGap: 1 })

/** A row's height: its wrapped description and period, at least one line of numbers. */
function rowHeight(pdf: PDFKit.PDFDocument, line: InvoiceDocument['lines'][number]): number {
  pdf.font('regular').fontSize(CELL_SIZE)
  let height = pdf.heightOfString(line.label, cellOptions(COLUMNS[0].width))
  if (line.periodStart !== line.periodEnd) {
    pdf.fontSize(7)
    height += pdf.heightOfString(formatPeriod(line.periodStart, line.periodEnd)!, cellOptions(COLUMNS[0].width)) + 1
  }
  return Math.max(height, 11) + 9
}

function row(
  pdf: PDFKit.PDFDocument,
  doc: InvoiceDocument,
  line: InvoiceDocument['lines'][number],
  y: number,
  height: number,
) {
  const top = y + 5
  const [description, quantity, unit, tax, net] = COLUMNS
  const below = put(pdf, line.label, description.x + 4, top, { width: description.width - 4, size: CELL_SIZE })
  if (line.periodStart !== line.periodEnd)
    put(pdf, formatPeriod(line.periodStart, line.periodEnd)!, description.x + 4, below + 1, {
      width: description.width - 4,
      size: 7,
      color: MUTED,
    })
  const cells: [(typeof COLUMNS)[number], string][] = [
    [quantity, formatQuantity(line.quantity)],
    [unit, formatUnitPrice(line.unitAmountWithoutTax, doc.minorUnits)],
    [tax, formatPercent(line.taxPercent)],
    [net, formatAmount(line.amountWithoutTax, doc.minorUnits)],
  ]
  for (const [column, value] of cells)
    put(pdf, value, column.x, top, { width: column.width - (column === net ? 4 : 0), align: 'right', size: CELL_SIZE })
  const bottom = y + height
  pdf.moveTo(LEFT, bottom).lineTo(RIGHT, bottom).lineWidth(0.5).strokeColor(RULE).stroke()
  return bottom
}

/** The breakdown's and the totals' height: a title row, a row per rate, three totals, the due date. */
function totalsHeight(doc: InvoiceDocument): number {
  return Math.max(30 + 15 * Math.max(doc.taxes.length, 1), 80) + 30
}

/** The tax breakdown per rate at the left, net, tax and gross at the right; the last thing of the document. */
function totals(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, y: number): void {
  const money = (value: string) => formatMoney(value, doc.minorUnits, doc.currency)
  const breakdownWidth = 265
  const columns = [
    { title: 'Tax', x: LEFT, width: 95, align: 'left' as const },
    { title: 'Rate', x: LEFT + 95, width: 40, align: 'right' as const },
    { title: `Base (${doc.currency})`, x: LEFT + 135, width: 65, align: 'right' as const },
    { title: `Tax (${doc.currency})`, x: LEFT + 200, width: 65, align: 'right' as const },
  ]
  pdf.rect(LEFT, y, breakdownWidth, 16).fill(BAND)
  for (const c of columns)
    put(pdf, c.title, c.x + (c.align === 'left' ? 4 : 0), y + 4.5, {
      width: c.width - 4,
      align: c.align,
      font: 'bold',
      size: 7.5,
      color: MUTED,
    })
  let r = y + 20
  for (const tax of doc.taxes) {
    const values = [
      tax.label,
      formatPercent(tax.taxPercent),
      formatAmount(tax.base, doc.minorUnits),
      formatAmount(tax.amount, doc.minorUnits),
    ]
    const heights = columns.map((c, i) =>
      put(pdf, values[i]!, c.x + (c.align === 'left' ? 4 : 0), r, { width: c.width - 4, align: c.align, size: 8.5 }),
    )
    r = Math.max(...heights) + 4
  }
  if (doc.taxes.length === 0) put(pdf, 'No tax.', LEFT + 4, r, { width: 200, size: 8.5, color: MUTED })

  const x = LEFT + breakdownWidth + 25
  const width = RIGHT - x
  const names = 95
  let t = y + 2
  const amountRow = (name: string, value: string, bold = false) => {
    const size = fitting(pdf, value, width - names, bold ? 10.5 : 9)
    put(pdf, name, x, t, { width: names, font: bold ? 'bold' : 'regular', size: bold ? 10.5 : 9 })
    t = put(pdf, value, x + names, t, { width: width - names, align: 'right', font: 'bold', size }) + 5
  }
  const credit = doc.invoiceType === 'CREDIT_NOTE'
  amountRow('Total without tax', money(doc.amountWithoutTax))
  amountRow('Tax', money(doc.amountTax))
  pdf.moveTo(x, t).lineTo(RIGHT, t).lineWidth(0.8).strokeColor(INK).stroke()
  t += 6
  amountRow(credit ? 'Total credited' : 'Total', money(doc.amountWithTax), true)
  const due = credit
    ? `Credited to account ${doc.billTo.account}.`
    : doc.invoiceNumber === null
      ? `Due ${doc.dueDate} once validated.`
      : `Payable by ${doc.dueDate}.`
  put(pdf, due, x, t + 2, { width, align: 'right', size: 8, color: MUTED })
}

/** The bold size, at most `size`, at which an amount fits `width` on one line (a huge amount gets smaller, not cut). */
function fitting(pdf: PDFKit.PDFDocument, text: string, width: number, size: number): number {
  let fitted = size
  while (fitted > 6 && pdf.font('bold').fontSize(fitted).widthOfString(text) > width) fitted -= 0.5
  return fitted
}

function footer(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, page: number, pages: number): void {
  pdf
    .moveTo(LEFT, FOOTER_Y - 6)
    .lineTo(RIGHT, FOOTER_Y - 6)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke()
  const seller = [doc.seller.name, doc.seller.vatNo && `VAT no. ${doc.seller.vatNo}`].filter(Boolean).join(' · ')
  put(pdf, seller, LEFT, FOOTER_Y, { width: WIDTH * 0.6, size: 7, color: MUTED })
  put(pdf, `${referenceOf(doc)} · page ${page} of ${pages}`, LEFT + WIDTH * 0.4, FOOTER_Y, {
    width: WIDTH * 0.6,
    align: 'right',
    size: 7,
    color: MUTED,
  })
}

/** The mark of a document that is not an invoice yet (or no longer), across the page, light. */
function watermark(pdf: PDFKit.PDFDocument, mark: string): void {
  pdf.save()
  pdf.rotate(-35, { origin: [PAGE.width / 2, PAGE.height / 2] })
  pdf
    .font('bold')
    .fontSize(mark.length > 5 ? 90 : 130)
    .fillColor('#c0392b')
    .fillOpacity(0.16)
  const width = PAGE.width * 1.2
  pdf.text(mark, PAGE.width / 2 - width / 2, PAGE.height / 2 - 70, { width, align: 'center', lineBreak: false })
  pdf.restore()
}
