import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { billRun, invoicesOf, orderInvoiceable, seedInvoicingCatalog } from './invoicing-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedInvoicingCatalog(t)
})

describe('a FULL_AUTOMATIC bill run', () => {
  it('bills a fee and three small items into one validated invoice taxed per rate on the summed net', async () => {
    await orderInvoiceable(t, { fee: true, items: 0 })
    for (let i = 0; i < 3; i++) await orderInvoiceable(t, { fee: false, items: 1 })
    const run = await billRun(t, { processType: 'FULL_AUTOMATIC', generateAO: true })
    expect(run.status).toBe('VALIDATED')
    const [invoice, ...others] = await invoicesOf(t, run.id)
    expect(others).toEqual([])
    expect(invoice).toMatchObject({ status: 'VALIDATED', billingAccount: 'BA_1', currency: 'EUR' })
    expect(invoice.invoiceNumber).toMatch(/^INV-2026-\d{6}$/)
    expect([invoice.amountWithoutTax, invoice.amountTax, invoice.amountWithTax]).toEqual([100.15, 20.01, 120.16])
    const full = await t.request('GET', `/api/v1/invoices/${invoice.id}`)
    expect(full.body.taxes).toEqual([
      { tax: 'TAX_05_5', taxPercent: 5.5, base: 0.15, amount: 0.01 },
      { tax: 'TAX_20', taxPercent: 20, base: 100, amount: 20 },
    ])
    expect(full.body.accountOperation).toMatchObject({
      direction: 'DEBIT',
      amount: 120.16,
      reference: invoice.invoiceNumber,
    })
    expect(full.body.lines).toHaveLength(4)
    const again = await billRun(t, { processType: 'FULL_AUTOMATIC' })
    expect(again.status).toBe('VALIDATED')
    expect(await invoicesOf(t, again.id)).toEqual([])
  })
})
