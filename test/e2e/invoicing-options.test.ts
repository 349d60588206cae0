import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/test-app.ts'
import { created } from './catalog-fixtures.ts'
import { orderOf, place } from './order-fixtures.ts'
import {
  amounts,
  freshAccounts,
  invoice,
  invoicesOf,
  operationsOf,
  orderFor,
  runCycle,
  seedInvoicingCatalog,
} from './invoicing-fixtures.ts'

const t = useTestApp()

beforeAll(async () => {
  await seedInvoicingCatalog(t)
})

const linesOfRun = async (runId: number) => (await invoice(t, (await invoicesOf(t, runId))[0].id)).lines as any[]

describe('date aggregation (usage day, ISO week, month)', () => {
  it.each([
    ['DAY', 3],
    ['WEEK', 2],
    ['MONTH', 1],
  ])('%s groups items of Sunday 1, Monday 2 and Tuesday 3 March into %i lines', async (dateAggregation, count) => {
    const { cycle, accounts } = await freshAccounts(t, `DATES_${dateAggregation}`)
    for (const date of ['2026-03-01', '2026-03-02', '2026-03-03'])
      await orderFor(t, accounts[0]!, { fee: false, items: 1, date })
    const run = await runCycle(t, cycle, {
      processType: 'FULL_AUTOMATIC',
      ignoreSubscriptions: true,
      ignoreOrders: true,
      dateAggregation,
    })
    const lines = await linesOfRun(run.id)
    expect(lines).toHaveLength(count)
    expect(lines.reduce((n: number, l) => n + Number(l.walletOperationCount), 0)).toBe(3)
    if (dateAggregation === 'WEEK')
      expect(lines.map((l) => [l.periodStart, l.periodEnd]).sort()).toEqual([
        ['2026-03-01', '2026-03-01'],
        ['2026-03-02', '2026-03-03'],
      ])
  })
})

describe('discounts', () => {
  it('without discountAggregation, a discount line names the line it discounts', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'DISCOUNT')
    await place(
      t,
      orderOf(
        [{ offerTemplateCode: 'OF_INV', subscriptionDate: '2026-03-01', orderProducts: [{ productCode: 'PR_FEE' }] }],
        { billingAccountCode: accounts[0], userAccountCode: 'UA_DISCOUNT', discountPlanCodes: ['DP_ORDER_20'] },
      ),
    )
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', discountAggregation: false })
    const full = await invoice(t, (await invoicesOf(t, run.id))[0].id)
    const fee = full.lines.find((l: any) => l.discountPlanItem === null)
    const discount = full.lines.find((l: any) => l.discountPlanItem !== null)
    expect(fee).toMatchObject({ amountWithoutTax: 100 })
    expect(discount).toMatchObject({ amountWithoutTax: -20, discountedLine: fee.id })
    expect(amounts(full)).toEqual([80, 16, 96])
  })
})

describe('what a run bills', () => {
  it('leaves the operations of a PREPAID wallet out: they were paid when the wallet was credited', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'PREPAID_OUT')
    await created(t, 'POST', '/api/v1/userAccounts/UA_PREPAID_OUT/wallets', { code: 'PP', walletType: 'PREPAID' })
    await orderFor(t, accounts[0]!, { fee: true, items: 1 })
    const [first] = await operationsOf(t, accounts[0]!)
    // The first operation debited the prepaid wallet (as a confirmed usage reservation's would be).
    await t.db.current.db.execute(sql`update wallet_operation set wallet_id = (select w.id from wallet w
        join user_account ua on ua.id = w.user_account_id where ua.code = 'UA_PREPAID_OUT' and w.code = 'PP')
      where id = ${first.id}`)
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
    expect(run.counts.walletOperations).toBe(1)
    expect((await operationsOf(t, accounts[0]!)).map((o) => o.status)).toEqual(['OPEN', 'BILLED'])
  })

  it('taxes each rate on its summed gross when prices include tax (B2C)', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'B2C')
    const setting = await t.request('PUT', '/api/v1/tenantSettings', { pricesIncludeTax: true })
    expect(setting.status, JSON.stringify(setting.body)).toBe(200)
    try {
      await orderFor(t, accounts[0]!, { fee: true, items: 3 })
      const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
      const full = await invoice(t, (await invoicesOf(t, run.id))[0].id)
      // 100 gross at 20 %: tax round(100 × 20 / 120) = 16.67; 0.15 gross at 5.5 %: round(0.15 × 5.5 / 105.5) = 0.01.
      expect(full.taxes).toEqual([
        { tax: 'TAX_05_5', taxPercent: 5.5, base: 0.14, amount: 0.01 },
        { tax: 'TAX_20', taxPercent: 20, base: 83.33, amount: 16.67 },
      ])
      expect(amounts(full)).toEqual([83.47, 16.68, 100.15])
    } finally {
      await t.request('PUT', '/api/v1/tenantSettings', { pricesIncludeTax: false })
    }
  })

  it('dates its invoices at validation when computeDatesAtValidation, before numbering', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'DATES_AT_VALIDATION', { cycle: { dueDateDelay: 10 } })
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, {
      processType: 'FULL_AUTOMATIC',
      invoiceDate: '2026-01-15',
      computeDatesAtValidation: true,
    })
    const [only] = await invoicesOf(t, run.id)
    const today = new Date().toISOString().slice(0, 10)
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 10 * 86_400_000).toISOString().slice(0, 10)
    expect(only).toMatchObject({ invoiceDate: today, dueDate: due })
    expect(only.invoiceNumber).toMatch(new RegExp(`^INV-${today.slice(0, 4)}-`))
  })
})

describe('suspect invoices under MANUAL_ACTION', () => {
  it('keep a FULL_AUTOMATIC run in DRAFT_INVOICES until a person moves, validates or cancels them', async () => {
    const { cycle, accounts } = await freshAccounts(t, 'WAITING', { accounts: 2 })
    await orderFor(t, accounts[0]!, { fee: true })
    await orderFor(t, accounts[1]!, { fee: true })
    await created(t, 'POST', '/api/v1/invoiceValidationRules', {
      code: 'WAIT_FOR_ME',
      condition: `billingAccountCode == '${accounts[1]}'`,
      failStatus: 'SUSPECT',
      validFrom: '2026-01-01',
      validTo: '2026-12-31',
    })
    try {
      const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC' })
      expect(run).toMatchObject({ status: 'DRAFT_INVOICES', counts: { invoices: { VALIDATED: 1, SUSPECT: 1 } } })
      const advance = await t.request('POST', `/api/v1/billingRuns/${run.id}/advance`)
      expect(advance.status).toBe(409)
      expect(advance.body.message).toContain('suspect invoices wait for a person')
      const suspect = (await invoicesOf(t, run.id)).find((i) => i.status === 'SUSPECT')
      const moved = await t.request('POST', `/api/v1/invoices/${suspect.id}/move`)
      expect(moved.status, JSON.stringify(moved.body)).toBe(200)
      expect(moved.body.billRun).not.toBe(run.id)
      const after = await t.request('GET', `/api/v1/billingRuns/${run.id}`)
      expect(after.body).toMatchObject({ status: 'VALIDATED', nextBillRunId: moved.body.billRun })
      // A rule outside its validity does not apply: an invoice dated 2027 passes.
      const later = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', invoiceDate: '2027-02-01' })
      expect(later.status).toBe('VALIDATED')
    } finally {
      await t.request('DELETE', '/api/v1/invoiceValidationRules/WAIT_FOR_ME')
    }
  })
})

describe('rules, sequences and accounting operations as resources', () => {
  it('reads, changes and deletes a rule; null clears an optional field', async () => {
    await created(t, 'POST', '/api/v1/invoiceValidationRules', {
      code: 'CRUD_RULE',
      description: 'first',
      condition: 'amountWithTax < 0',
      failStatus: 'REJECTED',
      priority: 5,
    })
    expect(
      (
        await t.request('POST', '/api/v1/invoiceValidationRules', {
          code: 'CRUD_RULE',
          condition: 'true',
          failStatus: 'SUSPECT',
        })
      ).status,
    ).toBe(409)
    const changed = await t.request('PUT', '/api/v1/invoiceValidationRules/CRUD_RULE', {
      description: null,
      failStatus: 'SUSPECT',
    })
    expect(changed.body).toMatchObject({ code: 'CRUD_RULE', description: null, failStatus: 'SUSPECT', priority: 5 })
    const broken = await t.request('PUT', '/api/v1/invoiceValidationRules/CRUD_RULE', { condition: '(' })
    expect(broken.body.errorCode).toBe('INVALID_RULE_CONDITION')
    const listed = await t.request('GET', '/api/v1/invoiceValidationRules')
    expect(listed.body.data.map((r: any) => r.code)).toContain('CRUD_RULE')
    expect((await t.request('DELETE', '/api/v1/invoiceValidationRules/CRUD_RULE')).status).toBe(204)
    expect((await t.request('GET', '/api/v1/invoiceValidationRules/CRUD_RULE')).body.errorCode).toBe('RULE_NOT_FOUND')
  })

  it('lists the default sequences and the accounting operations of a customer account (finance role)', async () => {
    const sequences = await t.request('GET', '/api/v1/invoiceSequences')
    expect(sequences.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ seller: null, invoiceType: 'INVOICE', pattern: 'INV-{yyyy}-{seq:6}' }),
        expect.objectContaining({ seller: null, invoiceType: 'CREDIT_NOTE', pattern: 'CN-{yyyy}-{seq:6}' }),
      ]),
    )
    const { cycle, accounts } = await freshAccounts(t, 'AO')
    await orderFor(t, accounts[0]!, { fee: true })
    const run = await runCycle(t, cycle, { processType: 'FULL_AUTOMATIC', generateAO: true })
    const [only] = await invoicesOf(t, run.id)
    const finance = await t.tokenWithRoles(['finance.accountReceivables.view'])
    const listed = await t.requestAs(finance, 'GET', '/api/v1/accountOperations?customerAccount=CA_AO')
    expect(listed.status).toBe(200)
    expect(listed.body.data).toEqual([
      expect.objectContaining({ invoice: only.id, direction: 'DEBIT', amount: 120, reference: only.invoiceNumber }),
    ])
    const invoicesOnly = await t.tokenWithRoles(['billing.invoices.view'])
    expect((await t.requestAs(invoicesOnly, 'GET', '/api/v1/accountOperations')).status).toBe(403)
  })
})
