import { createOutbox } from '../../src/kernel/events/index.ts'
import { systemClock } from '../../src/kernel/clock.ts'
import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { rows } from '../../src/kernel/db/database.ts'
import type { App } from '../../src/app.ts'
import * as repo from '../../src/modules/prepaid/prepaid.repository.ts'
import type { TestApp } from '../support/test-app.ts'
import { charge, created } from './catalog-fixtures.ts'
import { orderOf, place, seedOrderCatalog } from './order-fixtures.ts'

export const MEDIATION = '/api/rest/billing/mediation'

/** A reservation report for statements tests call directly: its events go to an outbox without listeners. */
export const testReport = repo.prepaidReport(createOutbox({ clock: systemClock }))

/**
 * On top of `seedOrderCatalog` (tax NORMAL 20 %, seller MAIN, UA_1 in EUR): counter template CT_FREE (10 free units a
 * month); CH_CALL (USAGE, FLAT 0.5, filterParam1 CALL, counter CT_FREE) and CH_ANY (USAGE, FLAT 0.1, no filter) in
 * PR_PREPAID, sold by OF_PREPAID; subscriptions `subscriptions` of UA_1 placed and active from 2026-01-01; a PREPAID
 * wallet PP of UA_1 (nothing credited).
 */
export async function seedPrepaid(t: TestApp, subscriptions: readonly string[]): Promise<void> {
  await seedOrderCatalog(t)
  const post = (path: string, body: unknown, status = 201) => created(t, 'POST', `/api/v1/${path}`, body, status)
  await post('counterTemplates', {
    code: 'CT_FREE',
    description: '10 free calls a month',
    calendar: 'MONTHLY',
    ceiling: 10,
  })
  for (const [code, price, extra] of [
    ['CH_CALL', 0.5, { filterParam1: 'CALL', counterTemplate: 'CT_FREE' }],
    ['CH_ANY', 0.1, {}],
  ] as const) {
    await post('charges', charge(code, 'USAGE', { description: code, ...extra }))
    await created(t, 'PUT', `/api/v1/charges/${code}/pricing/draft`, {
      pricingModel: 'FLAT',
      currency: 'EUR',
      validFrom: '2020-01-01',
      price,
    })
    await post(`charges/${code}/pricing/publish`, {}, 200)
  }
  await productOffer(t, 'PR_PREPAID', ['CH_CALL', 'CH_ANY'], 'OF_PREPAID')
  for (const subscriptionCode of subscriptions) await placePrepaid(t, subscriptionCode)
  await post('userAccounts/UA_1/wallets', { code: 'PP', walletType: 'PREPAID' })
}

/** A product of `charges` (version 1 from 2020-01-01, PUBLISHED) and an ACTIVE offer `offer` selling it. */
export async function productOffer(t: TestApp, product: string, charges: readonly string[], offer: string) {
  const post = (path: string, body: unknown, status = 201) => created(t, 'POST', `/api/v1/${path}`, body, status)
  await post('products', { code: product, name: product })
  await post(`products/${product}/versions`, { shortDescription: 'v1', validFrom: '2020-01-01' })
  for (const c of charges) await post(`products/${product}/versions/1/charges/${c}`, {}, 200)
  await created(t, 'PUT', `/api/v1/products/${product}/versions/1/status?status=PUBLISHED`, undefined, 200)
  await post('offerTemplates', {
    code: offer,
    name: offer,
    lifeCycleStatus: 'ACTIVE',
    offerComponents: [{ productCode: product }],
  })
}

/** Places an order of OF_PREPAID (PR_PREPAID) from 2026-01-01 for a subscription; `extra` adds order fields. */
export async function placePrepaid(
  t: TestApp,
  subscriptionCode: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await place(
    t,
    orderOf(
      [
        {
          subscriptionCode,
          offerTemplateCode: 'OF_PREPAID',
          subscriptionDate: '2026-01-01',
          orderProducts: [{ productCode: 'PR_PREPAID' }],
        },
      ],
      extra,
    ),
  )
}

export async function credit(t: TestApp, amount: number | string, wallet = 'PP', account = 'UA_1'): Promise<any> {
  return created(t, 'POST', `/api/v1/userAccounts/${account}/wallets/${wallet}/credits`, { amount })
}

export async function wallet(t: TestApp, code = 'PP', account = 'UA_1'): Promise<any> {
  const response = await t.request('GET', `/api/v1/userAccounts/${account}/wallets`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body.find((w: any) => w.code === code)
}

/**
 * A mediation call to one application instance (`reserveCdr` with a usage line as text/plain, confirm and cancel with
 * a JSON body), as the admin.
 */
export async function mediationCall(
  t: TestApp,
  app: App,
  path: string,
  body: unknown,
  contentType = 'application/json',
) {
  const response = await app.server.inject({
    method: 'POST',
    url: `${MEDIATION}/${path}`,
    headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
    payload: typeof body === 'string' && contentType === 'text/plain' ? body : JSON.stringify(body),
  })
  return { status: response.statusCode, body: response.json() }
}

/** Posts a usage line as text/plain, with the given token (the admin's by default). */
export async function reserveAs(t: TestApp, token: string | undefined, line: string) {
  const response = await t.app.server.inject({
    method: 'POST',
    url: `${MEDIATION}/reserveCdr`,
    headers: { 'content-type': 'text/plain', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: line,
  })
  return { status: response.statusCode, body: response.json() }
}

export const reserve = (t: TestApp, line: string) => reserveAs(t, t.adminToken, line)

/**
 * Every wallet's balance and reserved amount and every counter period's value recomputed from the ledger, beside the
 * stored figures: they must be equal.
 */
export async function ledgerCheck(t: TestApp) {
  const wallets = await rows<{ id: unknown; balance: string; reserved: string; lb: string; lr: string }>(
    t.db.current.db,
    sql`select w.id, w.balance::text as balance, w.reserved::text as reserved,
        coalesce(sum(l.balance_delta), 0)::text as lb, coalesce(sum(l.reserved_delta), 0)::text as lr
      from wallet w left join balance_ledger l on l.wallet_id = w.id where w.wallet_type = 'PREPAID'
      group by w.id order by w.id`,
  )
  const counters = await rows<{ id: unknown; value: string; lv: string }>(
    t.db.current.db,
    sql`select p.id, p.value::text as value, coalesce(sum(l.balance_delta), 0)::text as lv
      from counter_period p left join balance_ledger l on l.counter_period_id = p.id group by p.id order by p.id`,
  )
  return { wallets, counters }
}

export function expectLedgerConsistent(check: Awaited<ReturnType<typeof ledgerCheck>>): void {
  for (const w of check.wallets) {
    expect(Number(w.lb), `wallet ${String(w.id)} balance`).toBe(Number(w.balance))
    expect(Number(w.lr), `wallet ${String(w.id)} reserved`).toBe(Number(w.reserved))
  }
  for (const c of check.counters) expect(Number(c.lv), `counter period ${String(c.id)}`).toBe(Number(c.value))
}

/** The rows a one-statement reserve (`reserveHeld`) of a subscription's CALL charge names, called directly. */
export interface HeldTarget {
  readonly sellerId: number
  readonly userAccountId: number
  readonly subscriptionId: number
  readonly chargeInstanceId: number
  readonly walletId: number
  readonly periodId: number
}

/** Reserves `line` (a CALL line: it opens the month's counter period) and reads the rows its reservation names. */
export async function heldTarget(t: TestApp, line: string): Promise<HeldTarget> {
  const first = await reserve(t, line)
  expect(first.status, JSON.stringify(first.body)).toBe(200)
  const [found] = await rows<Record<string, string>>(
    t.db.current.db,
    sql`select r.seller_id::text as seller, r.user_account_id::text as user_account, r.subscription_id::text as subscription,
        r.charge_instance_id::text as charge_instance, r.wallet_id::text as wallet,
        (select key from jsonb_each_text(r.counter_period_values) limit 1) as period
      from reservation r where r.id = ${first.body.reservationId as number}`,
  )
  return {
    sellerId: Number(found!.seller),
    userAccountId: Number(found!.user_account),
    subscriptionId: Number(found!.subscription),
    chargeInstanceId: Number(found!.charge_instance),
    walletId: Number(found!.wallet),
    periodId: Number(found!.period),
  }
}

/**
 * The arguments of a one-statement reserve on `target` made at `at`: a CALL reservation taking `units` free units of
 * its period and holding `amount` on its wallet, expiring a minute later.
 */
export function heldArgs(
  t: TestApp,
  target: HeldTarget,
  at: Date,
  units: string,
  amount: string,
): Parameters<typeof repo.reserveHeld> {
  const { periodId, walletId } = target
  return [
    t.db.current.db,
    {
      type: 'USAGE',
      sellerId: target.sellerId,
      userAccountId: target.userAccountId,
      subscriptionId: target.subscriptionId,
      walletId,
      chargeInstanceId: target.chargeInstanceId,
      offerTemplateId: null,
      quantity: '10',
      freeQuantity: units,
      amountWithoutTax: amount,
      amountWithTax: amount,
      counterPeriodValues: { [String(periodId)]: units },
      discountTaken: {},
      usageDate: at,
      param1: 'CALL',
      param2: null,
      creditLimit: null,
      subscriptionDate: null,
      subscriptionCode: null,
      reservationDate: at,
      expiryDate: new Date(at.getTime() + 60_000),
    },
    [{ periodId, units }],
    [
      { type: 'HOLD', counterPeriodId: periodId, balanceDelta: `-${units}` },
      { type: 'HOLD', walletId, balanceDelta: '0', reservedDelta: amount },
    ],
    'test',
    testReport,
  ]
}
