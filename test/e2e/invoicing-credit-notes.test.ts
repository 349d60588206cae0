import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import {
  amounts,
  freshAccounts,
  invoice,
  invoicesOf,
  orderFor,
  runCycle,
  seedInvoicingCatalog,
} from './invoicing-fixtures.ts'
import { orderOf, place } from './order-fixtures.ts'

// Credit notes are dated on the injected clock's day, the day they are created and again the day they are validated.
const clock = new FakeClock('2027-02-10T09:00:00.000Z')
const t = useTestApp({ clock })

beforeAll(async () => {
  await seedInvoicingCatalog(t)
})

/** A validated invoice of a fresh account: the 100.00 fee (20 %) and `items` items of 0.05 (5.5 %). */
async function validatedInvoice(name: string, options: { items?: number; generateAO?: boolean } = {}): Promise<any> {
  const { cycle, accounts } = await freshAccounts(t, name)
  await orderFor(t, accounts[0]!, { fee: true, items: options.items ?? 3 })
  const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', generateAO: options.generateAO ?? true })
  const [only] = await invoicesOf(t, run.id)
  return invoice(t, only.id)
}

const creditNote = (id: number, body: unknown) => t.request('POST', `/api/v1/invoices/${id}/creditNotes`, body)

async function creditNotesOf(originalId: number): Promise<any[]> {
  return (await invoice(t, originalId)).creditNotes as any[]
}

describe('a whole credit note', () => {
  it('credits every line at its amounts, refuses a second one, and is validated with a CN- number and a CREDIT operation', async () => {
    const original = await validatedInvoice('WHOLE')
    expect(amounts(original)).toEqual([100.15, 20.01, 120.16])
    const issued = await creditNote(original.id, { reason: 'Billed twice', whole: true })
    expect(issued.status, JSON.stringify(issued.body)).toBe(201)
    const note = issued.body
    expect(note).toMatchObject({
      invoiceType: 'CREDIT_NOTE',
      status: 'DRAFT',
      invoiceNumber: null,
      billRun: null,
      billingAccount: original.billingAccount,
      customerAccount: original.customerAccount,
      seller: original.seller,
      currency: 'EUR',
      originalInvoice: { id: original.id, invoiceNumber: original.invoiceNumber },
      reason: 'Billed twice',
      invoiceDate: '2027-02-10',
      dueDate: '2027-03-12',
      periodStart: original.periodStart,
      periodEnd: original.periodEnd,
      accountOperation: null,
    })
    // The same totals rule: the three 0.05 items owe 0.01 of tax together, here as on the invoice.
    expect(amounts(note)).toEqual([100.15, 20.01, 120.16])
    expect(note.taxes).toEqual(original.taxes)
    const strip = (line: any) => [
      line.label,
      line.quantity,
      line.unitAmountWithoutTax,
      ...amounts(line),
      line.taxPercent,
    ]
    expect(note.lines.map(strip)).toEqual(original.lines.map(strip))
    expect(note.lines.map((l: any) => l.creditedLine)).toEqual(original.lines.map((l: any) => l.id))
    expect(note.lines.every((l: any) => l.billRun === null && l.walletOperationCount === 0)).toBe(true)

    // Drafts count: a second whole credit note would credit the invoice twice.
    const second = await creditNote(original.id, { reason: 'Again', whole: true })
    expect(second.status, JSON.stringify(second.body)).toBe(422)
    expect(second.body).toMatchObject({ status: 'FAIL', errorCode: 'CREDIT_EXCEEDS_INVOICE' })
    expect(second.body.message).toContain('has 0.00 EUR left to credit')
    expect(second.body.message).toContain('120.16 EUR of 120.16 EUR credited')
    expect(await creditNotesOf(original.id)).toEqual([
      { id: note.id, invoiceNumber: null, status: 'DRAFT', amountWithTax: 120.16 },
    ])

    clock.set('2027-02-15T16:00:00.000Z')
    try {
      const validated = await t.request('POST', `/api/v1/invoices/${note.id}/validate`)
      expect(validated.status, JSON.stringify(validated.body)).toBe(200)
      expect(validated.body.invoiceNumber).toMatch(/^CN-2027-\d{6}$/)
      // Dated the day it is issued (validated), due the cycle's 30 days later.
      expect(validated.body).toMatchObject({ status: 'VALIDATED', invoiceDate: '2027-02-15', dueDate: '2027-03-17' })
      expect(validated.body.accountOperation).toMatchObject({
        type: 'CREDIT_NOTE',
        direction: 'CREDIT',
        amount: 120.16,
        unmatchedAmount: 120.16,
        reference: validated.body.invoiceNumber,
        transactionDate: '2027-02-15',
      })
    } finally {
      clock.set('2027-02-10T09:00:00.000Z')
    }
    // A validated credit note never changes, and is not credited in turn.
    const again = await t.request('POST', `/api/v1/invoices/${note.id}/cancel`, {})
    expect(again.body.errorCode).toBe('INVOICE_VALIDATED')
    const ofNote = await creditNote(note.id, { reason: 'no', whole: true })
    expect(ofNote.status).toBe(409)
    expect(ofNote.body).toMatchObject({ errorCode: 'INVALID_INVOICE_STATE' })
    expect(ofNote.body.message).toContain('only an invoice can be credited')
    // The original is as it was.
    const after = await invoice(t, original.id)
    expect(after).toMatchObject({ status: 'VALIDATED', invoiceNumber: original.invoiceNumber })
    expect(amounts(after)).toEqual(amounts(original))
  })

  it('is listed with the invoices, filtered by type, and read by the Query API and the generic API as an Invoice', async () => {
    const original = await validatedInvoice('LISTED', { items: 0 })
    const note = (await creditNote(original.id, { reason: 'Goodwill', whole: true })).body
    const listed = await t.request('GET', `/api/v1/invoices?invoiceType=CREDIT_NOTE&billingAccount=BA_LISTED`)
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((i: any) => [i.id, i.invoiceType, i.originalInvoice.id])).toEqual([
      [note.id, 'CREDIT_NOTE', original.id],
    ])
    const invoicesOnly = await t.request('GET', `/api/v1/invoices?invoiceType=INVOICE&billingAccount=BA_LISTED`)
    expect(invoicesOnly.body.data.map((i: any) => i.id)).toEqual([original.id])
    const filters = encodeURIComponent(
      JSON.stringify({ invoiceType: 'CREDIT_NOTE', originalInvoice: { id: original.id } }),
    )
    const query = await t.request(
      'GET',
      `/api/v1/query/invoice?filters=${filters}&fields=id,invoiceType,status,amountWithTax,reason,originalInvoice.id`,
    )
    expect(query.status, JSON.stringify(query.body)).toBe(200)
    expect(query.body.data).toEqual([
      {
        id: note.id,
        invoiceType: 'CREDIT_NOTE',
        status: 'DRAFT',
        amountWithTax: 120,
        reason: 'Goodwill',
        originalInvoice: { id: original.id },
      },
    ])
    const nested = await t.request(
      'GET',
      `/api/v1/query/invoice?filters=${encodeURIComponent(JSON.stringify({ id: original.id }))}&fields=id&nested=creditNotes`,
    )
    expect(nested.body.data[0].creditNotes.map((n: any) => n.id)).toEqual([note.id])
    const generic = await t.request('POST', '/api/rest/v2/generic/all/invoice', {
      filters: { invoiceType: 'CREDIT_NOTE', originalInvoice: { id: original.id } },
      genericFields: ['invoiceType', 'amountWithTax'],
    })
    expect(generic.status, JSON.stringify(generic.body)).toBe(200)
    expect(generic.body.data).toEqual([expect.objectContaining({ invoiceType: 'CREDIT_NOTE', amountWithTax: 120 })])
  })
})

describe('a partial credit note', () => {
  it('credits named lines by net amount, taxed at their rate, up to what is left of each line, to the cent', async () => {
    const original = await validatedInvoice('PARTIAL')
    const [fee, item1, item2, item3] = original.lines as any[]
    expect(fee.label).toBe('Monthly fee')

    const first = await creditNote(original.id, {
      reason: 'Fee reduced',
      lines: [{ invoiceLine: fee.id, amountWithoutTax: '30.00' }],
    })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(
      first.body.lines.map((l: any) => [l.creditedLine, l.quantity, l.unitAmountWithoutTax, ...amounts(l)]),
    ).toEqual([[fee.id, 1, 30, 30, 6, 36]])
    expect(amounts(first.body)).toEqual([30, 6, 36])

    // More than is left of the fee's net (70.00): refused, nothing written.
    const tooMuch = await creditNote(original.id, {
      reason: 'Fee reduced more',
      lines: [{ invoiceLine: fee.id, amountWithoutTax: 70.01 }],
    })
    expect(tooMuch.status).toBe(422)
    expect(tooMuch.body.errorCode).toBe('CREDIT_EXCEEDS_INVOICE')
    expect(tooMuch.body.message).toBe(`Line ${fee.id} (Monthly fee) has 70.00 left to credit without tax; 70.01 asked`)
    expect(await creditNotesOf(original.id)).toHaveLength(1)

    // What is left, exactly: the line's net, tax and gross less the first note's, so the two give back the line.
    const rest = await creditNote(original.id, {
      reason: 'Fee waived',
      lines: [
        { invoiceLine: fee.id, amountWithoutTax: 70 },
        { invoiceLine: item1.id, amountWithoutTax: 0.05 },
        { invoiceLine: item2.id, amountWithoutTax: '0.05' },
      ],
    })
    expect(rest.status, JSON.stringify(rest.body)).toBe(201)
    expect(
      rest.body.lines.map((l: any) => [l.creditedLine, l.quantity, l.unitAmountWithoutTax, ...amounts(l)]),
    ).toEqual([
      [fee.id, 1, 70, 70, 14, 84],
      // Never credited before and credited whole: the line's quantity and unit price.
      [item1.id, 1, 0.05, 0.05, 0, 0.05],
      [item2.id, 1, 0.05, 0.05, 0, 0.05],
    ])
    // The totals rule on the credit note's own lines: 0.10 at 5.5 % owes 0.01 though each line's tax is 0.00.
    expect(amounts(rest.body)).toEqual([70.1, 14.01, 84.11])
    expect(rest.body.taxes).toEqual([
      { tax: 'TAX_05_5', taxPercent: 5.5, base: 0.1, amount: 0.01 },
      { tax: 'TAX_20', taxPercent: 20, base: 70, amount: 14 },
    ])

    // 36.00 and 84.11 credited of 120.16: the third item's 0.05 is exactly what is left.
    const last = await creditNote(original.id, {
      reason: 'Last item',
      lines: [{ invoiceLine: item3.id, amountWithoutTax: 0.05 }],
    })
    expect(last.status, JSON.stringify(last.body)).toBe(201)
    expect(amounts(last.body)).toEqual([0.05, 0, 0.05])
    const whole = await creditNote(original.id, { reason: 'All', whole: true })
    expect(whole.status).toBe(422)
    expect(whole.body.message).toContain('has 0.00 EUR left to credit')

    // A cancelled credit note no longer counts: its amount may be credited again.
    const cancelled = await t.request('POST', `/api/v1/invoices/${rest.body.id}/cancel`, {})
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body.status).toBe('CANCELLED')
    const again = await creditNote(original.id, {
      reason: 'Fee waived, once more',
      lines: [{ invoiceLine: fee.id, amountWithoutTax: 70 }],
    })
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(amounts(again.body)).toEqual([70, 14, 84])
    expect((await creditNotesOf(original.id)).map((n) => [n.status, n.amountWithTax])).toEqual([
      ['DRAFT', 36],
      ['CANCELLED', 84.11],
      ['DRAFT', 0.05],
      ['DRAFT', 84],
    ])
  })

  it('keeps the credit notes under the invoice’s gross even where each line has room left (tax per rate)', async () => {
    // Three lines of 2 items (0.10 at 5.5 %), each line's own tax 0.01; the invoice owes round(0.30 × 5.5 %) = 0.02.
    const { cycle, accounts } = await freshAccounts(t, 'CEILING')
    for (let i = 0; i < 3; i++)
      await place(
        t,
        orderOf(
          [
            {
              offerTemplateCode: 'OF_INV',
              subscriptionDate: '2026-03-01',
              orderProducts: [{ productCode: 'PR_ITEM', quantity: 2 }],
            },
          ],
          { billingAccountCode: accounts[0], userAccountCode: 'UA_CEILING' },
        ),
      )
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    const original = await invoice(t, (await invoicesOf(t, run.id))[0].id)
    expect(amounts(original)).toEqual([0.3, 0.02, 0.32])
    const lines = original.lines as any[]
    expect(lines.map((l) => [l.quantity, ...amounts(l)])).toEqual([
      [2, 0.1, 0.01, 0.11],
      [2, 0.1, 0.01, 0.11],
      [2, 0.1, 0.01, 0.11],
    ])
    for (const line of lines.slice(0, 2)) {
      const note = await creditNote(original.id, {
        reason: 'one line',
        lines: [{ invoiceLine: line.id, amountWithoutTax: 0.1 }],
      })
      expect(note.status, JSON.stringify(note.body)).toBe(201)
      expect(amounts(note.body)).toEqual([0.1, 0.01, 0.11])
    }
    // The third line's net is all there, but 0.22 + 0.11 would pass the invoice's 0.32.
    const third = await creditNote(original.id, {
      reason: 'one line',
      lines: [{ invoiceLine: lines[2].id, amountWithoutTax: 0.1 }],
    })
    expect(third.status).toBe(422)
    expect(third.body).toMatchObject({
      errorCode: 'CREDIT_EXCEEDS_INVOICE',
      message:
        `Invoice ${original.invoiceNumber} has 0.10 EUR left to credit (0.22 EUR of 0.32 EUR credited by credit ` +
        'notes not cancelled); this credit note is 0.11 EUR',
    })
    const less = await creditNote(original.id, {
      reason: 'most of it',
      lines: [{ invoiceLine: lines[2].id, amountWithoutTax: 0.09 }],
    })
    expect(less.status, JSON.stringify(less.body)).toBe(201)
    expect(amounts(less.body)).toEqual([0.09, 0, 0.09])
  })
})

describe('refusals', () => {
  let original: any
  beforeAll(async () => {
    original = await validatedInvoice('REFUSALS', { items: 1 })
  })

  it.each([
    [{ whole: true }, 'reason'],
    [{ reason: '   ', whole: true }, 'reason'],
    [{ reason: 'x' }, 'lines'],
    [{ reason: 'x', whole: true, lines: [{ invoiceLine: 1, amountWithoutTax: 1 }] }, 'whole'],
    [{ reason: 'x', whole: false }, 'whole'],
    [{ reason: 'x', lines: [] }, 'lines'],
    [{ reason: 'x', lines: [{ invoiceLine: 1 }] }, 'lines.0.amountWithoutTax'],
    [{ reason: 'x', lines: [{ invoiceLine: 1, amountWithoutTax: 'ten' }] }, 'lines.0.amountWithoutTax'],
    [{ reason: 'x', whole: true, other: 1 }, 'other'],
  ])('refuses %j naming %s', async (body, field) => {
    const refused = await creditNote(original.id, body)
    expect(refused.status, JSON.stringify(refused.body)).toBe(400)
    expect(refused.body.errorCode).toBe('VALIDATION_FAILED')
    expect(refused.body.details.map((d: any) => d.field)).toContain(field)
    expect(await creditNotesOf(original.id)).toEqual([])
  })

  it('refuses lines of another invoice, a line named twice, a zero amount and more decimals than the currency’s', async () => {
    const [fee, item] = original.lines as any[]
    const other = await validatedInvoice('REFUSALS_OTHER', { items: 0 })
    const refused = await creditNote(original.id, {
      reason: 'x',
      lines: [
        { invoiceLine: other.lines[0].id, amountWithoutTax: 1 },
        { invoiceLine: fee.id, amountWithoutTax: 1 },
        { invoiceLine: fee.id, amountWithoutTax: 1 },
        { invoiceLine: item.id, amountWithoutTax: 0 },
        { invoiceLine: item.id, amountWithoutTax: '0.001' },
      ],
    })
    expect(refused.status, JSON.stringify(refused.body)).toBe(400)
    expect(refused.body.details).toEqual([
      { field: 'lines.0.invoiceLine', message: `expected a line of invoice ${original.id}` },
      { field: 'lines.2.invoiceLine', message: `line ${fee.id} is named twice` },
      { field: 'lines.3.amountWithoutTax', message: 'expected an amount greater than 0' },
      { field: 'lines.4.invoiceLine', message: `line ${item.id} is named twice` },
      { field: 'lines.4.amountWithoutTax', message: "expected at most 2 decimals (the currency's)" },
    ])
    expect(await creditNotesOf(original.id)).toEqual([])
  })

  it('credits only a validated invoice (409 INVALID_INVOICE_STATE from the invoice machine)', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'DRAFTED')
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    const [draft] = await invoicesOf(t, run.id)
    const refused = await creditNote(draft.id, { reason: 'x', whole: true })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({
      errorCode: 'INVALID_INVOICE_STATE',
      message: 'Invoice is DRAFT: only a VALIDATED invoice can be credited',
    })
    expect(
      (await t.request('POST', '/api/v1/invoices/999999/creditNotes', { reason: 'x', whole: true })).body,
    ).toMatchObject({ errorCode: 'INVOICE_NOT_FOUND' })
  })

  it('needs billing.creditNotes.manage, and hides another seller’s invoice', async () => {
    const invoicesOnly = await t.tokenWithRoles(['billing.invoices.view', 'billing.invoices.manage'])
    const forbidden = await t.requestAs(invoicesOnly, 'POST', `/api/v1/invoices/${original.id}/creditNotes`, {
      reason: 'x',
      whole: true,
    })
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.message).toContain('billing.creditNotes.manage')
    await created(t, 'POST', '/api/v1/sellers', { code: 'CN_OTHER_SELLER', tradingCurrency: 'EUR', country: 'FR' })
    const otherSeller = await t.tokenWithRoles(['billing.creditNotes.manage', 'billing.invoices.view'], {
      sellerCodes: ['CN_OTHER_SELLER'],
    })
    const hidden = await t.requestAs(otherSeller, 'POST', `/api/v1/invoices/${original.id}/creditNotes`, {
      reason: 'x',
      whole: true,
    })
    expect(hidden.status).toBe(404)
    expect(hidden.body.errorCode).toBe('INVOICE_NOT_FOUND')
    expect(await creditNotesOf(original.id)).toEqual([])
  })
})
