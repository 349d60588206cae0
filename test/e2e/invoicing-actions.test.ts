import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import {
  freshAccounts,
  invoice,
  invoicesOf,
  orderFor,
  runCycle,
  seedInvoicingCatalog,
  settledRun,
} from './invoicing-fixtures.ts'

// A run and an invoice say what a person may do to them (allowedActions), and the server accepts exactly that.
const t = useTestApp()

beforeAll(async () => {
  await seedInvoicingCatalog(t)
})

const post = (path: string, body?: unknown) => t.request('POST', path, body)

describe('allowed actions', () => {
  it('a MANUAL run offers advance and cancel while it waits, nothing once validated; its invoices follow their machine', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'ACT')
    await orderFor(t, accounts[0]!, { fee: true, items: 1 })
    const waiting = await runCycle(t, cycle, { processType: 'MANUAL' })
    expect(waiting.status).toBe('INVOICE_LINES_CREATED')
    expect(waiting.allowedActions).toEqual(['advance', 'cancel'])

    const advanced = await post(`/api/v1/billingRuns/${waiting.id}/advance`)
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    const drafts = await settledRun(t, waiting.id)
    expect(drafts.status).toBe('DRAFT_INVOICES')
    expect(drafts.allowedActions).toEqual(['advance', 'cancel'])
    const [draft] = await invoicesOf(t, waiting.id)
    expect((await invoice(t, draft.id)).allowedActions).toEqual(['validate', 'cancel'])

    expect((await post(`/api/v1/billingRuns/${waiting.id}/advance`)).status).toBe(200)
    const done = await settledRun(t, waiting.id)
    expect(done.status).toBe('VALIDATED')
    expect(done.allowedActions).toEqual([])
    // What it does not offer is refused.
    expect((await post(`/api/v1/billingRuns/${waiting.id}/advance`)).status).toBe(409)
    expect((await post(`/api/v1/billingRuns/${waiting.id}/cancel`, {})).status).toBe(409)
    const listed = await t.request('GET', `/api/v1/billingRuns?billingCycle=${cycle}`)
    expect(listed.body.data[0].allowedActions).toEqual([])

    const validated = await invoice(t, draft.id)
    expect(validated.allowedActions).toEqual(['credit'])
    const note = await post(`/api/v1/invoices/${draft.id}/creditNotes`, { reason: 'wrong fee', whole: true })
    expect(note.status, JSON.stringify(note.body)).toBe(201)
    expect(note.body.allowedActions).toEqual(['validate', 'cancel'])
    const validatedNote = await post(`/api/v1/invoices/${note.body.id}/validate`)
    expect(validatedNote.body.allowedActions).toEqual([])
  })

  it('a run with a validated invoice cannot be cancelled, and does not offer it', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'ACT_V', { accounts: 2 })
    for (const account of accounts) await orderFor(t, account, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    expect(run.status).toBe('DRAFT_INVOICES')
    const [first] = await invoicesOf(t, run.id)
    expect((await post(`/api/v1/invoices/${first.id}/validate`)).status).toBe(200)
    const after = await settledRun(t, run.id)
    expect(after.allowedActions).toEqual(['advance'])
    expect((await post(`/api/v1/billingRuns/${run.id}/cancel`, {})).status).toBe(409)
  })
})
