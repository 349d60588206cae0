import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { useWebhookReceiver } from '../support/webhook-receiver.ts'
import { charge, created } from './catalog-fixtures.ts'
import { freshAccounts, invoicesOf, orderFor, runCycle, seedInvoicingCatalog } from './invoicing-fixtures.ts'

const t = useTestApp({ env: { WEBHOOK_PRIVATE_TARGETS: 'allow' } })
const receiver = useWebhookReceiver()

beforeAll(async () => {
  await seedInvoicingCatalog(t)
  await created(t, 'POST', '/api/v1/webhookEndpoints', { url: `${receiver.base}/all`, eventTypes: ['*'] })
})

/** The events the receiver got, by type, once `until` holds. */
async function eventsUntil(until: (types: string[]) => boolean): Promise<any[]> {
  await expect
    .poll(() => until(receiver.received.map((r) => JSON.parse(r.body).type as string)), { timeout: 15_000 })
    .toBe(true)
  return receiver.received.map((r) => JSON.parse(r.body))
}

describe('events of the changes, delivered', () => {
  it('reports an order, its subscriptions, a bill run moving through its states, and its invoices', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'EVENTS')
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    const [invoice] = await invoicesOf(t, run.id)
    // In no guaranteed order between records: wait for all of them.
    const events = await eventsUntil(
      (types) =>
        types.includes('invoice.validated') &&
        types.includes('order.validated') &&
        types.filter((type) => type === 'bill_run.status_changed').length >= 3,
    )
    const of = (type: string) => events.filter((e) => e.type === type)
    expect(of('order.created')[0].data.object).toMatchObject({ billingAccountCode: accounts[0], status: 'VALIDATED' })
    expect(of('subscription.created')[0].data.object).toMatchObject({ offer: 'OF_INV', status: 'ACTIVE' })
    expect(of('bill_run.created')[0]).toMatchObject({
      aggregate: { type: 'bill_run', id: String(run.id), sequence: 1 },
    })
    // NEW → INVOICE_LINES_CREATED → DRAFT_INVOICES → VALIDATED, each a status change numbered in order.
    const changes = of('bill_run.status_changed')
      .filter((e) => e.aggregate.id === String(run.id))
      .sort((a, b) => a.aggregate.sequence - b.aggregate.sequence)
    expect(changes.map((e) => [e.data.previous.status, e.data.object.status, e.aggregate.sequence])).toEqual([
      ['NEW', 'INVOICE_LINES_CREATED', 2],
      ['INVOICE_LINES_CREATED', 'DRAFT_INVOICES', 3],
      ['DRAFT_INVOICES', 'VALIDATED', 4],
    ])
    expect(of('invoice.created')[0].data.object).toMatchObject({ id: invoice.id, status: 'DRAFT', amountWithTax: 120 })
    expect(of('invoice.validated')[0].data.object).toMatchObject({
      id: invoice.id,
      status: 'VALIDATED',
      invoiceNumber: invoice.invoiceNumber,
    })

    // Its document stored, then a credit note of it.
    const note = await created(t, 'POST', `/api/v1/invoices/${invoice.id}/creditNotes`, { whole: true, reason: 'x' })
    const later = await eventsUntil(
      (types) => types.includes('invoice.pdf_ready') && types.includes('credit_note.created'),
    )
    expect(later.find((e) => e.type === 'invoice.pdf_ready')).toMatchObject({
      aggregate: { type: 'invoice', id: String(invoice.id) },
      data: { object: { id: invoice.id, invoiceNumber: invoice.invoiceNumber } },
    })
    expect(later.find((e) => e.type === 'credit_note.created').data.object).toMatchObject({
      id: note.id,
      invoiceType: 'CREDIT_NOTE',
      status: 'DRAFT',
      amountWithTax: 120,
    })
  })

  it('reports a published price and an offer changing its life-cycle status, and nothing for a change that keeps it', async () => {
    await created(t, 'POST', '/api/v1/charges', charge('CH_EVENTS', 'ONESHOT'))
    await created(t, 'PUT', '/api/v1/charges/CH_EVENTS/pricing/draft', {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2026-01-01',
      price: '12.34',
    })
    await created(t, 'POST', '/api/v1/charges/CH_EVENTS/pricing/publish', {}, 200)
    await created(t, 'POST', '/api/v1/offerTemplates', { code: 'OF_EVENTS', lifeCycleStatus: 'IN_DESIGN' })
    await created(t, 'PUT', '/api/v1/offerTemplates/OF_EVENTS', { name: 'renamed' }, 200)
    await created(t, 'PUT', '/api/v1/offerTemplates/OF_EVENTS', { lifeCycleStatus: 'IN_TEST' }, 200)
    const events = await eventsUntil(
      (types) => types.includes('price.published') && types.includes('offer.status_changed'),
    )
    expect(events.find((e) => e.type === 'price.published').data.object).toMatchObject({
      chargeCode: 'CH_EVENTS',
      version: 1,
      price: 12.34,
    })
    const offers = events.filter((e) => e.type === 'offer.status_changed')
    expect(offers).toHaveLength(1)
    expect(offers[0].data).toMatchObject({
      object: { code: 'OF_EVENTS', name: 'renamed', lifeCycleStatus: 'IN_TEST' },
      previous: { lifeCycleStatus: 'IN_DESIGN' },
    })
  })
})
