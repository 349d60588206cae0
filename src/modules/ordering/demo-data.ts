import { systemCaller } from '../../kernel/caller.ts'
import { sql } from 'drizzle-orm'
import { createOutbox } from '../../kernel/events/index.ts'
import { present } from '../../kernel/invariant.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { systemClock, type Clock } from '../../kernel/clock.ts'
import { createOrderService } from './order.service.ts'
import type { OrderInput } from './order.model.ts'
import { rateDueRecurringCharges } from './recurring-rating.ts'
import { offersByCode } from '../catalog/index.ts'

const TIERS = [
  ['GOLD', 'EU'],
  ['SILVER', 'US'],
  ['BRONZE', 'APAC'],
  ['GOLD', 'APAC'],
  ['SILVER', 'EU'],
] as const

const DAY_MS = 86_400_000

/**
 * Demo orders over the demo catalog, so the Query API has wallet operations to read: twelve validated orders of
 * OF_INTERNET (customers 001 to 012, tiers and regions varied, the welcome and loyalty discounts on some), subscribed
 * between three weeks and three months ago, then the recurring rating of every period ended since. Idempotent: does
 * nothing when the first demo order exists or the demo catalog is missing.
 */
export async function seedOrderingDemo(db: Db, clock: Clock = systemClock): Promise<{ created: boolean }> {
  if (await one(db, sql`select id from customer_order where code = 'ORD_DEMO_001'`)) return { created: false }
  if (!(await offersByCode(db, ['OF_INTERNET'])).has('OF_INTERNET')) return { created: false }
  // The demo's orders report to an outbox of their own: no endpoint exists yet to deliver them to.
  const orders = createOrderService({ db, clock, outbox: createOutbox({ clock }) })
  const caller = systemCaller('demo')
  for (let i = 1; i <= 12; i++) {
    const n = String(i).padStart(3, '0')
    const [tier, region] = present(TIERS[i % TIERS.length], 'demo tier')
    const subscriptionDate = new Date(clock.now().getTime() - (21 + 6 * i) * DAY_MS).toISOString().slice(0, 10)
    const order: OrderInput = {
      code: `ORD_DEMO_${n}`,
      description: `Demo order ${n}`,
      orderType: 'NEW',
      sellerCode: 'MAIN',
      billingAccountCode: `BA_${n}`,
      userAccountCode: `UA_${n}`,
      orderOffers: [
        {
          subscriptionCode: `SUB_DEMO_${n}`,
          orderLineType: 'CREATE',
          offerTemplateCode: 'OF_INTERNET',
          subscriptionDate,
          ...(i % 2 === 0 ? { discountPlanCodes: ['DP_WELCOME_10'] } : {}),
          orderProducts: [
            {
              productCode: 'PR_INTERNET',
              productActionType: 'CREATE',
              quantity: 1,
              orderAttributes: [
                { attributeCode: 'TIER', stringValue: tier },
                { attributeCode: 'REGION', stringValue: region },
              ],
              ...(i % 3 === 0 ? { discountPlanCodes: ['DP_LOYALTY_5'] } : {}),
            },
          ],
        },
      ],
    }
    await orders.create(order, true, caller)
  }
  await rateDueRecurringCharges({ db, now: clock.now(), actor: 'demo' })
  return { created: true }
}
