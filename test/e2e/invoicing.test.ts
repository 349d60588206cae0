import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import {
  amounts,
  freshAccounts,
  invoice,
  invoicesOf,
  operationsOf,
  orderFor,
  runCycle,
  seedInvoicingCatalog,
  settledRun,
  startRun,
} from './invoicing-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedInvoicingCatalog(t)
})

describe('a FULL_AUTOMATIC bill run', () => {
  it('bills a fee and three small items into one validated invoice taxed per rate on the summed net', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'FULL')
    await orderFor(t, accounts[0]!, { fee: true, items: 3 })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', generateAO: true })
    expect(run).toMatchObject({
      status: 'VALIDATED',
      progress: { step: null },
      counts: { invoices: { VALIDATED: 1 }, invoiceLines: 4, walletOperations: 4 },
      amountWithoutTax: 100.15,
      amountTax: 20.01,
      amountWithTax: 120.16,
    })
    const [only, ...others] = await invoicesOf(t, run.id)
    expect(others).toEqual([])
    const full = await invoice(t, only.id)
    expect(full).toMatchObject({
      status: 'VALIDATED',
      invoiceType: 'INVOICE',
      billingAccount: accounts[0],
      currency: 'EUR',
      invoiceDate: '2026-12-01',
      dueDate: '2026-12-31',
    })
    expect(full.invoiceNumber).toMatch(/^INV-2026-\d{6}$/)
    // Each 0.05 item's own tax rounds to 0.00; the three owe 0.01 together (tax per rate on the summed net).
    expect(amounts(full)).toEqual([100.15, 20.01, 120.16])
    expect(full.taxes).toEqual([
      { tax: 'TAX_05_5', taxPercent: 5.5, base: 0.15, amount: 0.01 },
      { tax: 'TAX_20', taxPercent: 20, base: 100, amount: 20 },
    ])
    expect(full.lines.map((l: any) => [l.label, l.quantity, l.amountWithoutTax, l.amountTax])).toEqual([
      ['Monthly fee', 1, 100, 20],
      ['Small item', 1, 0.05, 0],
      ['Small item', 1, 0.05, 0],
      ['Small item', 1, 0.05, 0],
    ])
    expect(full.accountOperation).toMatchObject({
      type: 'INVOICE',
      direction: 'DEBIT',
      amount: 120.16,
      unmatchedAmount: 120.16,
      matchingStatus: 'O',
      reference: full.invoiceNumber,
      transactionDate: '2026-12-01',
      dueDate: '2026-12-31',
    })
    const operations = await operationsOf(t, accounts[0]!)
    expect(operations.map((o) => o.status)).toEqual(['BILLED', 'BILLED', 'BILLED', 'BILLED'])
    expect(new Set(operations.map((o) => o.invoiceLine.id))).toEqual(new Set(full.lines.map((l: any) => l.id)))
    // Everything was billed once: a second run has nothing to bill and ends VALIDATED with no invoice.
    const again = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    expect(again).toMatchObject({ status: 'VALIDATED', counts: { invoices: {}, invoiceLines: 0, walletOperations: 0 } })
    expect(await invoicesOf(t, again.id)).toEqual([])
  })

  it('aggregates over subscriptions when the run says so: the three items are one line', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'AGGR')
    await orderFor(t, accounts[0]!, { fee: false, items: 3 })
    const run = await runCycle(t, cycle, {
      processType: 'FULL_AUTOMATIC',
      ignoreSubscriptions: true,
      ignoreOrders: true,
    })
    const full = await invoice(t, (await invoicesOf(t, run.id))[0].id)
    expect(full.lines).toHaveLength(1)
    expect(full.lines[0]).toMatchObject({
      label: 'Small item',
      quantity: 3,
      amountWithoutTax: 0.15,
      amountTax: 0,
      walletOperationCount: 3,
      subscription: null,
      order: null,
    })
    expect(amounts(full)).toEqual([0.15, 0.01, 0.16])
  })

  it('keeps each operation a line of its own with disableAggregation', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'DISABLED')
    await orderFor(t, accounts[0]!, { fee: false, items: 2 })
    const run = await runCycle(t, cycle, {
      processType: 'FULL_AUTOMATIC',
      ignoreSubscriptions: true,
      ignoreOrders: true,
      disableAggregation: true,
    })
    const full = await invoice(t, (await invoicesOf(t, run.id))[0].id)
    expect(full.lines.map((l: any) => l.walletOperationCount)).toEqual([1, 1])
  })

  it('bills only operations dated before the last transaction date', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'CUTOFF')
    await orderFor(t, accounts[0]!, { fee: true, date: '2026-03-01' })
    await orderFor(t, accounts[0]!, { fee: false, items: 1, date: '2026-04-01' })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', lastTransactionDate: '2026-04-01' })
    expect(run.counts.walletOperations).toBe(1)
    expect((await operationsOf(t, accounts[0]!)).map((o) => o.status)).toEqual(['BILLED', 'OPEN'])
  })
})

describe('process types', () => {
  it('MANUAL waits after the lines and after the drafts, each time for advance', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'MANUAL')
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'MANUAL' })
    expect(run).toMatchObject({ status: 'INVOICE_LINES_CREATED', counts: { invoiceLines: 1, invoices: {} } })
    const advanced = await t.request('POST', `/api/v1/billingRuns/${run.id}/advance`)
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
    const drafts = await settledRun(t, run.id)
    expect(drafts).toMatchObject({ status: 'DRAFT_INVOICES', counts: { invoices: { DRAFT: 1 } } })
    const [draft] = await invoicesOf(t, run.id)
    expect(draft.invoiceNumber).toBeNull()
    expect((await t.request('POST', `/api/v1/billingRuns/${run.id}/advance`)).status).toBe(200)
    const done = await settledRun(t, run.id)
    expect(done).toMatchObject({ status: 'VALIDATED', counts: { invoices: { VALIDATED: 1 } } })
    const refused = await t.request('POST', `/api/v1/billingRuns/${run.id}/advance`)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ errorCode: 'INVALID_BILL_RUN_STATE' })
    expect(refused.body.message).toContain('VALIDATED')
  })

  it('AUTOMATIC makes the drafts at once and waits for advance to validate them', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'AUTO', { accounts: 3 })
    for (const account of [...accounts].reverse()) await orderFor(t, account, { fee: true })
    const started = await startRun(t, cycle, { processType: 'AUTOMATIC' })
    // Its progress counts out of the cycle's billing accounts from the start.
    expect(started.progress).toMatchObject({ step: 'CREATING_INVOICE_LINES', done: 0, total: 3 })
    const run = await settledRun(t, started.id)
    expect(run).toMatchObject({ status: 'DRAFT_INVOICES', counts: { invoices: { DRAFT: 3 } } })
    await t.request('POST', `/api/v1/billingRuns/${run.id}/advance`)
    expect((await settledRun(t, run.id)).status).toBe('VALIDATED')
    // Numbers are consecutive, in billing account code order.
    const numbered = (await invoicesOf(t, run.id))
      .map((i) => [i.billingAccount, Number(String(i.invoiceNumber).slice(-6))] as const)
      .sort((a, b) => a[1] - b[1])
    expect(numbered.map(([account]) => account)).toEqual(accounts)
    expect(numbered[1]![1] - numbered[0]![1]).toBe(1)
    expect(numbered[2]![1] - numbered[1]![1]).toBe(1)
  })
})

describe('cancel', () => {
  it('REOPEN gives the operations back to a later run; CANCEL cancels them; a validated run cannot be cancelled', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'CANCEL')
    await orderFor(t, accounts[0]!, { fee: true, items: 1 })
    const first = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    const cancelled = await t.request('POST', `/api/v1/billingRuns/${first.id}/cancel`, { walletOperations: 'REOPEN' })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(await settledRun(t, first.id)).toMatchObject({ status: 'CANCELLED', counts: { invoices: {} } })
    expect((await operationsOf(t, accounts[0]!)).map((o) => [o.status, o.invoiceLine])).toEqual([
      ['OPEN', null],
      ['OPEN', null],
    ])
    const second = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    expect(second.counts.walletOperations).toBe(2)
    await t.request('POST', `/api/v1/billingRuns/${second.id}/cancel`, { walletOperations: 'CANCEL' })
    await settledRun(t, second.id)
    expect((await operationsOf(t, accounts[0]!)).map((o) => o.status)).toEqual(['CANCELED', 'CANCELED'])
    const third = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    expect(third.status).toBe('VALIDATED')
    const refused = await t.request('POST', `/api/v1/billingRuns/${third.id}/cancel`, {})
    expect(refused.status).toBe(409)
    expect(refused.body.errorCode).toBe('INVALID_BILL_RUN_STATE')
  })
})

describe('validation rules and auto actions', () => {
  const rule = async (code: string, condition: string, failStatus: string, extra: Record<string, unknown> = {}) =>
    created(t, 'POST', '/api/v1/invoiceValidationRules', {
      code,
      description: `${code} says no`,
      condition,
      failStatus,
      ...extra,
    })

  it('refuses a condition that does not parse, with its line and column', async () => {
    const refused = await t.request('POST', '/api/v1/invoiceValidationRules', {
      code: 'BROKEN',
      condition: 'amountWithTax >',
      failStatus: 'SUSPECT',
    })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ errorCode: 'INVALID_RULE_CONDITION', line: 1 })
    expect(refused.body.column).toBeGreaterThan(1)
    const unknown = await t.request('POST', '/api/v1/invoiceValidationRules', {
      code: 'UNKNOWN_VAR',
      condition: 'quantity > 3',
      failStatus: 'SUSPECT',
    })
    expect(unknown.body.errorCode).toBe('INVALID_RULE_CONDITION')
  })

  it('rejects, waits for a person, then validates after the person decides (FULL_AUTOMATIC)', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'REJECT', { accounts: 2 })
    await orderFor(t, accounts[0]!, { fee: true })
    await orderFor(t, accounts[1]!, { fee: false, items: 1 })
    await rule('TOO_BIG_R', `billingAccountCode == '${accounts[0]}' && amountWithTax > 100`, 'REJECTED')
    try {
      const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
      expect(run).toMatchObject({ status: 'REJECTED', counts: { invoices: { REJECTED: 1, DRAFT: 1 } } })
      const rejected = (await invoicesOf(t, run.id)).find((i) => i.status === 'REJECTED')
      expect(rejected).toMatchObject({ rejectedByRule: 'TOO_BIG_R', rejectReason: 'TOO_BIG_R says no' })
      const validated = await t.request('POST', `/api/v1/invoices/${rejected.id}/validate`)
      expect(validated.status, JSON.stringify(validated.body)).toBe(200)
      expect(validated.body.status).toBe('VALIDATED')
      // The last rejected invoice decided: DRAFT_INVOICES, and FULL_AUTOMATIC validates the rest at once.
      expect(await settledRun(t, run.id)).toMatchObject({ status: 'VALIDATED', counts: { invoices: { VALIDATED: 2 } } })
      const again = await t.request('POST', `/api/v1/invoices/${rejected.id}/cancel`, {})
      expect(again.status).toBe(409)
      expect(again.body.errorCode).toBe('INVOICE_VALIDATED')
    } finally {
      await t.request('DELETE', '/api/v1/invoiceValidationRules/TOO_BIG_R')
    }
  })

  it('applies each auto action: AUTOMATIC_VALIDATION, CANCEL, CANCEL_RT and MOVE', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'ACTIONS', { accounts: 2 })
    await orderFor(t, accounts[0]!, { fee: true })
    await orderFor(t, accounts[1]!, { fee: false, items: 1 })
    await rule('SUSPECT_SMALL', `billingAccountCode == '${accounts[1]}'`, 'SUSPECT')
    try {
      const validatedWith = await runCycle(t, cycle, {
        processType: 'FULL_AUTOMATIC',
        suspectAutoAction: 'AUTOMATIC_VALIDATION',
      })
      expect(validatedWith).toMatchObject({ status: 'VALIDATED', counts: { invoices: { VALIDATED: 2 } } })

      await orderFor(t, accounts[1]!, { fee: false, items: 1 })
      const cancelled = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', suspectAutoAction: 'CANCEL' })
      expect(cancelled).toMatchObject({ status: 'VALIDATED', counts: { invoices: { CANCELLED: 1 } } })
      expect((await operationsOf(t, accounts[1]!)).map((o) => o.status)).toEqual(['BILLED', 'OPEN'])

      const cancelledRt = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', suspectAutoAction: 'CANCEL_RT' })
      expect(cancelledRt.counts.invoices).toEqual({ CANCELLED: 1 })
      expect((await operationsOf(t, accounts[1]!)).map((o) => o.status)).toEqual(['BILLED', 'CANCELED'])

      await orderFor(t, accounts[1]!, { fee: false, items: 1 })
      const moved = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', suspectAutoAction: 'MOVE' })
      expect(moved).toMatchObject({ status: 'VALIDATED', counts: { invoices: {} } })
      expect(moved.nextBillRunId).toEqual(expect.any(Number))
      const next = await settledRun(t, moved.nextBillRunId)
      expect(next).toMatchObject({ originBillRunId: moved.id, status: 'DRAFT_INVOICES' })
      const [waiting] = await invoicesOf(t, next.id)
      expect(waiting).toMatchObject({ status: 'SUSPECT', movedFromRun: moved.id, rejectedByRule: 'SUSPECT_SMALL' })
      const accepted = await t.request('POST', `/api/v1/invoices/${waiting.id}/validate`)
      expect(accepted.body.invoiceNumber).toMatch(/^INV-/)
      expect(await settledRun(t, next.id)).toMatchObject({ status: 'VALIDATED' })
    } finally {
      await t.request('DELETE', '/api/v1/invoiceValidationRules/SUSPECT_SMALL')
    }
  })
})

describe('sequences', () => {
  it('numbers a seller with its own sequence, and its child seller through it', async () => {
    await created(t, 'POST', '/api/v1/sellers', { code: 'SEQ_PARENT', tradingCurrency: 'EUR', country: 'FR' })
    await created(t, 'POST', '/api/v1/sellers', {
      code: 'SEQ_CHILD',
      tradingCurrency: 'EUR',
      country: 'FR',
      parentSeller: 'SEQ_PARENT',
    })
    const put = await t.request('PUT', '/api/v1/invoiceSequences/SEQ_PARENT/INVOICE', {
      pattern: 'P{yy}-{seq:4}',
      resetEach: 'YEAR',
      currentValue: 41,
    })
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    expect(put.body).toMatchObject({
      seller: 'SEQ_PARENT',
      pattern: 'P{yy}-{seq:4}',
      currentValue: 41,
      inherited: null,
    })
    const child = await t.request('GET', '/api/v1/invoiceSequences/SEQ_CHILD/INVOICE')
    expect(child.body).toMatchObject({ seller: 'SEQ_CHILD', pattern: 'P{yy}-{seq:4}', inherited: 'SEQ_PARENT' })
    const lowered = await t.request('PUT', '/api/v1/invoiceSequences/SEQ_PARENT/INVOICE', { currentValue: 3 })
    expect(lowered.status).toBe(400)
    expect(lowered.body.details).toEqual([expect.objectContaining({ field: 'currentValue' })])
    const badPattern = await t.request('PUT', '/api/v1/invoiceSequences/SEQ_PARENT/INVOICE', { pattern: 'P-{seq:4}' })
    expect(badPattern.status).toBe(400)

    const { cycle, accounts } = await freshAccounts(t, 'SEQ', { seller: 'SEQ_CHILD' })
    await orderFor(t, accounts[0]!, { fee: true, seller: 'SEQ_CHILD' })
    await orderFor(t, accounts[0]!, { fee: true, seller: 'SEQ_CHILD' })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    const [only] = await invoicesOf(t, run.id)
    // The child seller numbers from its parent's sequence: 41 was the last number taken this year.
    expect(only).toMatchObject({ seller: 'SEQ_CHILD', invoiceNumber: 'P26-0042' })
    const after = await t.request('GET', '/api/v1/invoiceSequences/SEQ_PARENT/INVOICE')
    expect(after.body.currentValue).toBe(42)
  })
})

describe('invoice preview', () => {
  it('shows the invoice the next run makes, persisting nothing', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'PREVIEW')
    await orderFor(t, accounts[0]!, { fee: true, items: 3 })
    const preview = await t.request('POST', `/api/v1/billingAccounts/${accounts[0]}/invoicePreview`, {
      lastTransactionDate: '2027-01-01',
      invoiceDate: '2026-12-01',
    })
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    expect(preview.body.invoices).toHaveLength(1)
    const previewed = preview.body.invoices[0]
    expect(previewed).toMatchObject({ id: null, status: 'DRAFT', invoiceNumber: null })
    expect(amounts(previewed)).toEqual([100.15, 20.01, 120.16])
    expect((await operationsOf(t, accounts[0]!)).every((o) => o.status === 'OPEN')).toBe(true)
    const run = await runCycle(t, cycle, { processType: 'AUTOMATIC' })
    const real = await invoice(t, (await invoicesOf(t, run.id))[0].id)
    expect(amounts(real)).toEqual(amounts(previewed))
    expect(real.taxes).toEqual(previewed.taxes)
    const strip = (lines: any[]) => lines.map(({ id: _i, billRun: _r, invoice: _v, ...rest }) => rest)
    expect(strip(real.lines)).toEqual(strip(previewed.lines))
    const unknown = await t.request('POST', '/api/v1/billingAccounts/NOPE/invoicePreview', {})
    expect(unknown.status).toBe(404)
  })
})

describe('access', () => {
  it('shows a seller-restricted client none of another seller’s invoices, and needs the invoice roles', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'ACCESS')
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    const [mine] = await invoicesOf(t, run.id)
    await created(t, 'POST', '/api/v1/sellers', { code: 'OTHER_SELLER', tradingCurrency: 'EUR', country: 'FR' })
    const other = await t.tokenWithRoles(['billing.invoices.view', 'billing.invoices.manage'], {
      sellerCodes: ['OTHER_SELLER'],
    })
    const listed = await t.requestAs(other, 'GET', `/api/v1/invoices?billRun=${run.id}`)
    expect(listed.body).toMatchObject({ total: 0, data: [] })
    expect((await t.requestAs(other, 'GET', `/api/v1/invoices/${mine.id}`)).status).toBe(404)
    expect((await t.requestAs(other, 'POST', `/api/v1/invoices/${mine.id}/cancel`, {})).status).toBe(404)
    const preview = await t.requestAs(other, 'POST', `/api/v1/billingAccounts/${accounts[0]}/invoicePreview`, {})
    expect(preview.status).toBe(404)
    const query = await t.requestAs(
      await t.tokenWithRoles(['billing.invoices.view'], { sellerCodes: ['OTHER_SELLER'] }),
      'GET',
      `/api/v1/query/invoice/count`,
    )
    expect(query.body).toMatchObject({ total: 0 })
    const noRole = await t.tokenWithRoles(['billing.billingRuns.view'])
    const forbidden = await t.requestAs(noRole, 'GET', '/api/v1/invoices')
    expect(forbidden.status).toBe(403)
    expect(forbidden.body.message).toContain('billing.invoices.view')
    // The Query API and Opencell's generic API read invoices too.
    const generic = await t.request('POST', '/api/rest/v2/generic/all/invoice', {
      filters: { billingRun: { id: run.id } },
      genericFields: ['invoiceNumber', 'amountWithTax'],
    })
    expect(generic.status, JSON.stringify(generic.body)).toBe(200)
    expect(generic.body.data[0].invoiceNumber).toBe(mine.invoiceNumber)
  })
})

it('refuses an unknown bill run with BILL_RUN_NOT_FOUND and an unknown invoice with INVOICE_NOT_FOUND', async () => {
  expect((await t.request('GET', '/api/v1/billingRuns/999999')).body.errorCode).toBe('BILL_RUN_NOT_FOUND')
  expect((await t.request('POST', '/api/v1/billingRuns/999999/advance')).body.errorCode).toBe('BILL_RUN_NOT_FOUND')
  expect((await t.request('GET', '/api/v1/invoices/999999')).body.errorCode).toBe('INVOICE_NOT_FOUND')
  const run = await startRun(t, 'CYC_M', { processType: 'MANUAL' })
  expect(run.status).toBe('NEW')
})
