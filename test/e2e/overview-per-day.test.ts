import { Decimal } from 'decimal.js'
import { sql } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import { FakeClock } from '../../src/kernel/clock.ts'
import { seedDemo } from '../../src/seed.ts'
import { useTestApp } from '../support/test-app.ts'

// The overview's operations per day: grouped by the database on the tenant's calendar (America/New_York, UTC-5 in
// November: a day read as a UTC instant again would fall on the day before), every day of the period.
const clock = new FakeClock('2026-11-24T10:00:00Z') // 05:00 on 24 November in New York
const t = useTestApp({ clock })

interface DayTotal {
  day: string
  count: number
  totals: { currency: string; count: number; amountWithTax: string }[]
}

/**
 * 38 distinct instants of rating, each with the New York day it belongs to (written out, not computed): 20 on the
 * 20th, 11 on the 21st, 7 on the 22nd, some on either side of New York's midnight (04:59:59.999Z and 05:00:00Z). Two
 * usage records rated through the API, a second either side of midnight on the 21st, make the 39th and 40th.
 */
const INSTANTS: { at: string; day: string }[] = [
  ...Array.from({ length: 19 }, (_, i) => ({
    at: `2026-11-20T${String(5 + (i % 12)).padStart(2, '0')}:${String(i).padStart(2, '0')}:00Z`,
    day: '2026-11-20',
  })),
  { at: '2026-11-21T04:59:59.999Z', day: '2026-11-20' },
  { at: '2026-11-21T05:00:00Z', day: '2026-11-21' },
  ...Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-21T1${i}:30:00Z`, day: '2026-11-21' })),
  { at: '2026-11-22T05:00:00.001Z', day: '2026-11-22' },
  ...Array.from({ length: 6 }, (_, i) => ({ at: `2026-11-22T1${i}:15:00Z`, day: '2026-11-22' })),
]
const DAYS = ['2026-11-20', '2026-11-21', '2026-11-22']

/**
 * 498 operations round the instants, dated with the tenant day as rating dates them; amounts a double cannot add
 * exactly (0.1, and a long decimal now and then); one in five of another seller.
 */
const OPERATIONS: { code: string; at: string; day: string; amount: string; seller: string }[] = Array.from(
  { length: 498 },
  (_, i) => {
    const instant = INSTANTS[i % INSTANTS.length]!
    return {
      code: `WO_DAY_${i}`,
      at: instant.at,
      day: instant.day,
      amount: i % 50 === 0 ? '1234567890.123456789' : '0.1',
      seller: i % 5 === 0 ? 'OTHER' : 'MAIN',
    }
  },
)

const cdr = async (line: string) => {
  const reserved = await t.app.server.inject({
    method: 'POST',
    url: '/api/rest/billing/mediation/reserveCdr',
    headers: { 'content-type': 'text/plain', authorization: `Bearer ${t.adminToken}` },
    payload: line,
  })
  expect(reserved.statusCode, reserved.body).toBe(200)
  const { reservationId, amountWithTax } = reserved.json<{ reservationId: number; amountWithTax: number }>()
  const confirm = await t.request('POST', '/api/rest/billing/mediation/confirmReservation', { reservationId })
  expect(confirm.status, JSON.stringify(confirm.body)).toBe(200)
  return String(amountWithTax)
}

const overview = async (token?: string) => {
  const answer = token
    ? await t.requestAs(token, 'GET', '/api/v1/overview')
    : await t.request('GET', '/api/v1/overview')
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as { walletOperations: { perDay: DayTotal[] } }
}
const eurOf = (d: DayTotal | undefined) => {
  const eur = d?.totals.find((x) => x.currency === 'EUR')
  return { count: eur?.count ?? 0, amount: new Decimal(eur?.amountWithTax ?? '0') }
}
const expected = (day: string, seller?: string) => {
  const mine = OPERATIONS.filter((o) => o.day === day && (!seller || o.seller === seller))
  return { count: mine.length, amount: mine.reduce((sum, o) => sum.plus(o.amount), new Decimal(0)) }
}

let before: DayTotal[]

beforeAll(async () => {
  await seedDemo(t.db.current.db)
  expect((await t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'America/New_York' })).status).toBe(200)
  expect((await t.request('POST', '/api/v1/sellers', { code: 'OTHER', tradingCurrency: 'EUR' })).status).toBe(201)
  const wallet = await t.request('POST', '/api/v1/userAccounts/UA_001/wallets', { code: 'PP', walletType: 'PREPAID' })
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(201)
  expect((await t.request('POST', '/api/v1/userAccounts/UA_001/wallets/PP/credits', { amount: '25.00' })).status).toBe(
    201,
  )
  before = (await overview()).walletOperations.perDay
  // Usage records carry the tenant's wall-clock time: 04:59:59Z and 05:00:00Z on the 22nd, one UTC day.
  const lateOn21 = await cdr('2026-11-21T23:59:59;SUB_DEMO_001;100;DATA;')
  const earlyOn22 = await cdr('2026-11-22T00:00:00;SUB_DEMO_001;100;DATA;')
  OPERATIONS.push(
    { code: 'CDR_21', at: '2026-11-22T04:59:59Z', day: '2026-11-21', amount: lateOn21, seller: 'MAIN' },
    { code: 'CDR_22', at: '2026-11-22T05:00:00Z', day: '2026-11-22', amount: earlyOn22, seller: 'MAIN' },
  )
  const inserted = OPERATIONS.filter((o) => o.code.startsWith('WO_DAY_'))
  // Copies of a demo operation, in EUR; one more cancelled, which never counts.
  await t.db.current.db.execute(
    sql`insert into wallet_operation (code, status, charge_type, operation_date, created, quantity,
          unit_amount_without_tax, amount_without_tax, amount_tax, amount_with_tax, tax_percent, tax_id,
          accounting_article_id, currency_id, wallet_id, charge_instance_id, subscription_id, billing_account_id,
          seller_id)
        select o.code, 'OPEN', w.charge_type, o.day, o.at, w.quantity, w.unit_amount_without_tax, o.amount, 0,
          o.amount, w.tax_percent, w.tax_id, w.accounting_article_id,
          (select id from trading_currency where code = 'EUR'), w.wallet_id, w.charge_instance_id, w.subscription_id,
          w.billing_account_id, s.id
        from (select * from wallet_operation limit 1) as w,
          json_to_recordset(${JSON.stringify(inserted)}::json) as o(code text, at timestamptz, day date, amount numeric, seller text)
          join seller s on s.code = o.seller
        union all
        select 'WO_DAY_CANCELED', 'CANCELED', w.charge_type, '2026-11-21', now(), w.quantity,
          w.unit_amount_without_tax, 5, 0, 5, w.tax_percent, w.tax_id, w.accounting_article_id, w.currency_id,
          w.wallet_id, w.charge_instance_id, w.subscription_id, w.billing_account_id, w.seller_id
        from (select * from wallet_operation limit 1) as w`,
  )
})

describe('GET /api/v1/overview, per day', () => {
  it('counts and sums each day of the tenant calendar exactly, 500 operations rated at 40 instants', async () => {
    const perDay = (await overview()).walletOperations.perDay
    expect(perDay.map((d) => d.day)).toEqual(before.map((d) => d.day))
    expect(perDay).toHaveLength(30)
    expect([perDay[0]!.day, perDay.at(-1)!.day]).toEqual(['2026-10-26', '2026-11-24'])
    for (const day of DAYS) {
      const now = perDay.find((d) => d.day === day)!
      const was = eurOf(before.find((d) => d.day === day))
      const ours = expected(day)
      expect(ours.count).toBeGreaterThan(0)
      const eur = now.totals.find((x) => x.currency === 'EUR')!
      expect(typeof eur.amountWithTax).toBe('string')
      expect(eur.amountWithTax).toMatch(/^-?\d+(\.\d+)?$/)
      expect({ day, count: eur.count, amount: new Decimal(eur.amountWithTax).toString() }).toEqual({
        day,
        count: was.count + ours.count,
        amount: was.amount.plus(ours.amount).toString(),
      })
      expect(now.count).toBe(now.totals.reduce((sum, x) => sum + x.count, 0))
    }
    // The days around them did not move: nothing of the 500 spilled over midnight.
    for (const day of ['2026-11-19', '2026-11-23'])
      expect(perDay.find((d) => d.day === day)).toEqual(before.find((d) => d.day === day))
    // The 20th's 264 operations, 4 of them long amounts: its own sum, to the digit.
    expect(expected('2026-11-20').amount.toString()).toBe('4938271586.493827156')
  })

  it("gives a seller-restricted caller only its sellers' operations, day by day", async () => {
    const other = await t.tokenWithRoles(['billing.wallets.view', 'queryUser'], { sellerCodes: ['OTHER'] })
    const perDay = (await overview(other)).walletOperations.perDay
    expect(perDay).toHaveLength(30)
    for (const d of perDay) {
      const ours = DAYS.includes(d.day) ? expected(d.day, 'OTHER') : { count: 0, amount: new Decimal(0) }
      expect({ day: d.day, count: d.count, amount: eurOf(d).amount.toString() }).toEqual({
        day: d.day,
        count: ours.count,
        amount: ours.amount.toString(),
      })
    }
  })
})
