import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import { orderMachine, subscriptionMachine } from './order.machine.ts'
import { present } from '../../kernel/invariant.ts'
import type { Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import {
  chargeInstances,
  discountPlanInstances,
  orderDiscountPlans,
  orderOffers,
  orderProducts,
  orders,
  productInstances,
  serviceInstances,
  subscriptions,
} from '../../kernel/db/schema/index.ts'
import { AppError } from '../../kernel/errors.ts'
import { sellerCodeOf } from '../accounts/index.ts'

export type OrderRow = typeof orders.$inferSelect

type InstanceTable =
  | typeof orderOffers
  | typeof orderProducts
  | typeof orderDiscountPlans
  | typeof subscriptions
  | typeof productInstances
  | typeof serviceInstances
  | typeof chargeInstances
  | typeof discountPlanInstances

/** Inserts rows and returns their ids in the same order (PostgreSQL returns the rows of a VALUES list in order). */
async function insertAll(db: Db, table: InstanceTable, values: readonly Record<string, unknown>[]): Promise<number[]> {
  if (values.length === 0) return []
  const inserted = (await db
    .insert(table)
    .values(values as never)
    .returning({ id: table.id })) as { id: number }[]
  return inserted.map((r) => r.id)
}

/** A new order; its code is unique (a concurrent duplicate is the same 409). */
export async function insertOrder(db: Db, values: typeof orders.$inferInsert): Promise<OrderRow> {
  try {
    const inserted = await db.insert(orders).values(values).returning()
    return present(inserted[0], 'inserted order')
  } catch (error) {
    if (pgErrorOf(error)?.code === '23505')
      throw new AppError('ENTITY_ALREADY_EXISTS', `Order ${values.code} already exists`)
    throw error
  }
}

export const insertOrderOffers = (db: Db, values: (typeof orderOffers.$inferInsert)[]) =>
  insertAll(db, orderOffers, values)
export const insertOrderProducts = (db: Db, values: (typeof orderProducts.$inferInsert)[]) =>
  insertAll(db, orderProducts, values)
export const insertOrderDiscountPlans = (db: Db, values: (typeof orderDiscountPlans.$inferInsert)[]) =>
  insertAll(db, orderDiscountPlans, values)
export const insertProductInstances = (db: Db, values: (typeof productInstances.$inferInsert)[]) =>
  insertAll(db, productInstances, values)
export const insertServiceInstances = (db: Db, values: (typeof serviceInstances.$inferInsert)[]) =>
  insertAll(db, serviceInstances, values)
export const insertChargeInstances = (db: Db, values: (typeof chargeInstances.$inferInsert)[]) =>
  insertAll(db, chargeInstances, values)
export const insertDiscountPlanInstances = (db: Db, values: (typeof discountPlanInstances.$inferInsert)[]) =>
  insertAll(db, discountPlanInstances, values)

/** New subscriptions (CREATED); a code already taken is a 409 naming it (also when taken concurrently). */
export async function insertSubscriptions(db: Db, values: (typeof subscriptions.$inferInsert)[]): Promise<number[]> {
  const codes = values.map((v) => v.code)
  const taken = await db
    .select({ code: subscriptions.code })
    .from(subscriptions)
    .where(inArray(subscriptions.code, codes))
  const exists = (list: string[]) =>
    new AppError('ENTITY_ALREADY_EXISTS', `Subscription ${list.join(', ')} already exists`)
  if (taken.length > 0) throw exists(taken.map((t) => t.code))
  try {
    return await insertAll(db, subscriptions, values)
  } catch (error) {
    if (pgErrorOf(error)?.code === '23505') throw exists(codes)
    throw error
  }
}

/** The order of a code, locked: validations of one order queue behind each other. */
export async function lockOrder(db: Db, code: string): Promise<OrderRow | undefined> {
  const found = await db.select().from(orders).where(eq(orders.code, code)).for('update')
  return found[0]
}

export async function findOrder(db: Db, code: string): Promise<(OrderRow & { sellerCode: string }) | undefined> {
  const found = await db
    .select({ order: orders, sellerCode: sellerCodeOf(sql`${orders.sellerId}`) })
    .from(orders)
    .where(eq(orders.code, code))
  const row = found[0]
  return row ? { ...row.order, sellerCode: row.sellerCode } : undefined
}

/** The order's offers in position order, with their subscription. */
export async function orderOffersOf(db: Db, orderId: number) {
  return db
    .select({
      id: orderOffers.id,
      position: orderOffers.position,
      subscriptionId: orderOffers.subscriptionId,
      subscriptionCode: subscriptions.code,
      subscriptionStatus: subscriptions.status,
    })
    .from(orderOffers)
    .leftJoin(subscriptions, eq(subscriptions.id, orderOffers.subscriptionId))
    .where(eq(orderOffers.orderId, orderId))
    .orderBy(asc(orderOffers.position))
}

/** The key of an order product in `orderProductsOf`: its offer's position and its own in the request. */
export const orderProductKey = (offerPosition: number, position: number) => `${offerPosition}:${position}`

/** The order's products by (offer position, product position): `orderProductKey`. */
export async function orderProductsOf(db: Db, orderId: number): Promise<Map<string, number>> {
  const found = await db
    .select({ id: orderProducts.id, offerPosition: orderOffers.position, position: orderProducts.position })
    .from(orderProducts)
    .innerJoin(orderOffers, eq(orderOffers.id, orderProducts.orderOfferId))
    .where(eq(orderOffers.orderId, orderId))
  return new Map(found.map((r) => [orderProductKey(r.offerPosition, r.position), r.id]))
}

export async function activateSubscriptions(db: Db, ids: readonly number[], actor: string): Promise<void> {
  if (ids.length === 0) return
  await db
    .update(subscriptions)
    .set({ status: 'ACTIVE', activationDate: sql`now()`, updated: sql`now()`, updater: actor })
    .where(
      and(
        inArray(subscriptions.id, [...ids]),
        subscriptionMachine.whereTrigger(sql`${subscriptions.status}`, 'activate'),
      ),
    )
}

/** The order VALIDATED (from DRAFT: `orderMachine`), as it now is. */
export async function markValidated(db: Db, orderId: number, actor: string): Promise<OrderRow> {
  const updated = await db
    .update(orders)
    .set({
      status: orderMachine.next('DRAFT', 'validate'),
      validatedAt: sql`now()`,
      updated: sql`now()`,
      updater: actor,
    })
    .where(and(eq(orders.id, orderId), orderMachine.whereTrigger(sql`${orders.status}`, 'validate')))
    .returning()
  return present(updated[0], `validated order ${orderId}`)
}

/** How many subscriptions of each status an offer has (the catalog checks them before deleting it). */
export async function subscriptionCountsOfOffer(db: Db, offerId: number): Promise<Map<string, number>> {
  const counts = await db
    .select({ status: subscriptions.status, n: sql<string>`count(*)::text` })
    .from(subscriptions)
    .where(eq(subscriptions.offerTemplateId, offerId))
    .groupBy(subscriptions.status)
  return new Map(counts.map((c) => [c.status, Number(c.n)]))
}
