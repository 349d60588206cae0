import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { isRetryable, withTransaction } from '../../kernel/db/transaction.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { entryOf, InvariantError, pairIds, present } from '../../kernel/invariant.ts'
import type { CatalogCache } from '../catalog/index.ts'
import { countDiscountPlanUses } from '../discounts/index.ts'
import { planInstanceKey, ratedOf, rateOrder, type OrderLine, type OrderRating } from './order-rating.ts'
import { resolveOrder } from './order-resolution.ts'
import type { OrderView } from './order-wire.ts'
import { USABLE_PLAN_STATUSES, type OrderInput, type ResolvedOffer } from './order.model.ts'
import * as repo from './order.repository.ts'
import { chargeOperation, discountOperation, type OperationOwner } from './wallet-operation.model.ts'
import {
  insertWalletOperations,
  principalWallet,
  reserveWalletOperationIds,
  type WalletOperationValues,
} from './wallet-operation.repository.ts'

/**
 * The steps the order use cases share: rating (`rate`), placement proper (`place`), the plans' use counted last
 * (`countPlanUses`), the placement transaction (`placing`), the order the caller may see, and the validated event.
 */

export interface OrderDeps {
  readonly db: Db
  readonly clock: Clock
  readonly catalogCache?: CatalogCache | undefined
  readonly outbox: Outbox
}

/**
 * The rows placement links its instances to: each order offer's subscription by offer position, each order product
 * by `orderProductKey`.
 */
export interface OrderLinks {
  readonly subscriptionAt: ReadonlyMap<number, number>
  readonly orderProducts: ReadonlyMap<string, number>
}

/** The links of a stored order: creation gave every order offer its subscription. */
async function orderLinks(tx: Db, orderId: number): Promise<OrderLinks> {
  const offerRows = await repo.orderOffersOf(tx, orderId)
  return {
    subscriptionAt: new Map(
      offerRows.map((o) => [o.position, present(o.subscriptionId, `subscription of order offer ${o.id}`)]),
    ),
    orderProducts: await repo.orderProductsOf(tx, orderId),
  }
}

/** A placement read a plan status that changed before it could lock the plan: it starts over. */
class PlacementOutdated extends Error {}

/** DRAFT → VALIDATED reported: its subscriptions are ACTIVE. */
export const orderValidated = (deps: OrderDeps, tx: Db, orderId: number, view: OrderView, sellerId: number) =>
  deps.outbox.emit(tx, {
    type: 'order.validated',
    aggregate: { type: 'order', id: orderId },
    object: view,
    previous: { status: 'DRAFT' },
    sellerId,
  })

/** Resolves and rates an order (preview, creation and validation alike). */
export const rate = async (deps: OrderDeps, db: Db, input: OrderInput, caller: Caller): Promise<OrderRating> =>
  rateOrder(
    await resolveOrder(db, input, {
      now: deps.clock.now(),
      sellerCodes: caller.sellerCodes,
      ...(deps.catalogCache ? { catalogCache: deps.catalogCache } : {}),
    }),
  )

/**
 * Validation proper, in the caller's transaction with the order row locked: instantiates subscriptions, products,
 * services, charges and discount plans, bills the one-shot subscription charges with their discounts. Recurring
 * charges wait for the end of their first period. The caller counts the plans' use (`countPlanUses`) last, after
 * reading its answer. `links` are the order's subscriptions and products, read from the order when not given
 * (creation, which has just written them, gives them). Answers the order VALIDATED.
 */
export async function place(
  tx: Db,
  order: repo.OrderRow,
  rating: OrderRating,
  caller: Caller,
  links?: OrderLinks,
): Promise<repo.OrderRow> {
  const resolved = rating.order
  const walletId = await principalWallet(tx, resolved.userAccount.id, caller.username)
  const { subscriptionAt, orderProducts } = links ?? (await orderLinks(tx, order.id))
  const subscriptionOf = (offer: ResolvedOffer) => entryOf(subscriptionAt, offer.position, 'subscription of offer')
  await repo.activateSubscriptions(tx, [...subscriptionAt.values()], caller.username)

  const productEntries = resolved.offers.flatMap((offer) => offer.products.map((product) => ({ offer, product })))
  const productIds = await repo.insertProductInstances(
    tx,
    productEntries.map(({ offer, product }) => ({
      code: product.product.code,
      subscriptionId: subscriptionOf(offer),
      productId: product.product.id,
      productVersionId: product.version.id,
      orderProductId: orderProducts.get(repo.orderProductKey(offer.position, product.position)) ?? null,
      quantity: product.quantity.toFixed(),
      attributes: { ...product.attributes },
      creator: caller.username,
    })),
  )
  const productInstanceOf = pairIds(
    productEntries.map((e) => e.product),
    productIds,
    'product instances',
  )
  const serviceEntries = resolved.offers.flatMap((offer) => offer.services.map((service) => ({ offer, service })))
  const serviceIds = await repo.insertServiceInstances(
    tx,
    serviceEntries.map(({ offer, service }) => ({
      code: service.service.code,
      subscriptionId: subscriptionOf(offer),
      serviceTemplateId: service.service.id,
      quantity: '1',
      creator: caller.username,
    })),
  )
  const serviceInstanceOf = pairIds(
    serviceEntries.map((e) => e.service),
    serviceIds,
    'service instances',
  )

  const chargeIds = await repo.insertChargeInstances(
    tx,
    rating.lines.map((line) => {
      const charge = line.resolved.charge
      const period = line.resolved.period
      return {
        code: charge.code,
        description: charge.description,
        status: line.billing === 'ACTIVATION' ? 'CLOSED' : 'ACTIVE',
        chargeId: charge.id,
        chargeType: charge.type,
        oneShotType: charge.oneShotType,
        subscriptionId: subscriptionOf(line.offer),
        productInstanceId: line.product === null ? null : entryOf(productInstanceOf, line.product, 'product instance'),
        serviceInstanceId: line.service === null ? null : entryOf(serviceInstanceOf, line.service, 'service instance'),
        walletId,
        quantity: line.resolved.quantity.toFixed(),
        unitPriceOverride: line.resolved.unitPriceOverride?.toFixed() ?? null,
        subscriptionDate: line.offer.subscriptionDate,
        chargedToDate: period?.start ?? null,
        nextRatingDate: period?.end ?? null,
        creator: caller.username,
      }
    }),
  )
  const chargeInstanceOf = pairIds(rating.lines, chargeIds, 'charge instances')

  const instanceIds = await repo.insertDiscountPlanInstances(
    tx,
    resolved.plans.map((selected) => ({
      orderId: order.id,
      subscriptionId: selected.offer === null ? null : subscriptionOf(selected.offer),
      productInstanceId:
        selected.product === null ? null : entryOf(productInstanceOf, selected.product, 'product instance'),
      discountPlanId: selected.plan.id,
      level: selected.level,
      automatic: selected.automatic,
      position: selected.position,
      // What the one-shot lines took; the first recurring periods are billed by the job from here.
      state: { ...entryOf(rating.activation.states, planInstanceKey(selected), 'discount state') },
      creator: caller.username,
    })),
  )
  const instanceOf = new Map(
    [...pairIds(resolved.plans, instanceIds, 'discount plan instances')].map(([p, id]) => [planInstanceKey(p), id]),
  )

  const billed = rating.lines.filter((l) => l.billing === 'ACTIVATION')
  const ownerOf = (line: OrderLine): OperationOwner => ({
    walletId,
    chargeInstanceId: entryOf(chargeInstanceOf, line, 'charge instance'),
    subscriptionId: subscriptionOf(line.offer),
    billingAccountId: resolved.billingAccount.id,
    sellerId: resolved.seller.id,
    orderId: order.id,
    currencyId: resolved.currency.id,
    actor: caller.username,
  })
  const { discounts: applied } = rating.activation
  const operationIds = await reserveWalletOperationIds(tx, billed.length + applied.length)
  const operationOf = pairIds(billed, operationIds.slice(0, billed.length), 'charge operations')
  const discountIdOf = pairIds(applied, operationIds.slice(billed.length), 'discount operations')
  const charged: WalletOperationValues[] = billed.map((line) => ({
    ...chargeOperation(
      ownerOf(line),
      line.resolved.charge,
      line.chargeType,
      ratedOf(line),
      line.resolved.tax,
      line.resolved.pricing?.versionId ?? null,
      line.offer.subscriptionDate,
      null,
    ),
    id: entryOf(operationOf, line, 'charge operation'),
  }))
  const lineOf = new Map(billed.map((line) => [line.key, line]))
  const discounts: WalletOperationValues[] = applied.map((discount) => {
    const line = entryOf(lineOf, discount.lineKey, 'discounted line')
    return {
      ...discountOperation(
        ownerOf(line),
        line.chargeType,
        discount,
        entryOf(instanceOf, discount.instance.key, 'discount plan instance'),
        entryOf(operationOf, line, 'charge operation'),
        line.offer.subscriptionDate,
        null,
      ),
      id: entryOf(discountIdOf, discount, 'discount operation'),
    }
  })
  await insertWalletOperations(tx, [...charged, ...discounts])
  return repo.markValidated(tx, order.id, caller.username)
}

/**
 * Counts the use of the order's discount plans, as the transaction's last statement (the answer is read before),
 * so their row locks are held only until the commit (orders sharing a plan queue there, not for their whole
 * placement). Under the lock the statuses read before are
 * checked again: a listed plan that expired meanwhile fails the order; an automatic one makes the placement start
 * over (`PlacementOutdated`), and the new resolution leaves it out.
 */
export async function countPlanUses(tx: Db, rating: OrderRating, caller: Caller): Promise<void> {
  const plans = rating.order.plans
  const uses = await countDiscountPlanUses(
    tx,
    plans.map((p) => p.plan.id),
    USABLE_PLAN_STATUSES,
    caller.username,
  )
  if (uses.counted) return
  const statusOf = (plan: { id: number }) => entryOf(uses.statuses, plan.id, 'locked discount plan')
  const stale = plans.filter((p) => !USABLE_PLAN_STATUSES.includes(statusOf(p.plan)))
  const listed = stale.find((p) => !p.automatic)
  if (listed) {
    throw validationError([
      {
        field: 'discountPlanCodes',
        message: `discount plan ${listed.plan.code} is ${statusOf(listed.plan)}: an order needs an ACTIVE or IN_USE plan`,
      },
    ])
  }
  if (stale.length > 0) throw new PlacementOutdated()
  throw new InvariantError('discount plan uses not counted although every plan was usable')
}

/**
 * Runs a placement transaction (`withTransaction`): again when PostgreSQL chose it as a deadlock or serialization
 * victim, or when it turned out to be outdated; still outdated on its last attempt, INVALID_STATE.
 */
export async function placing<T>(deps: OrderDeps, work: (tx: Db) => Promise<T>): Promise<T> {
  try {
    return await withTransaction(deps.db, work, {
      retryOn: (error) => error instanceof PlacementOutdated || isRetryable(error),
    })
  } catch (error) {
    if (!(error instanceof PlacementOutdated)) throw error
    throw new AppError('INVALID_STATE', 'The discount plans of the order changed while it was placed: try again')
  }
}

/** The order of this code the caller may see (locked with `lock`), else ENTITY_NOT_FOUND. */
export async function visibleOrder(db: Db, code: string, caller: Caller, lock: boolean) {
  if (lock) await repo.lockOrder(db, code)
  const order = await repo.findOrder(db, code)
  if (!order || (caller.sellerCodes && !caller.sellerCodes.includes(order.sellerCode))) {
    throw new AppError('ENTITY_NOT_FOUND', `Order ${code} not found`)
  }
  return order
}
