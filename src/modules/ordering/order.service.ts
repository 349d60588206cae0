import { randomUUID } from 'node:crypto'
import { isRetryable, withTransaction } from '../../kernel/db/transaction.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import { decimalJson } from '../../kernel/decimal-json.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { entryOf, InvariantError, pairIds, present } from '../../kernel/invariant.ts'
import type { CatalogCache } from '../catalog/index.ts'
import { countDiscountPlanUses } from '../discounts/index.ts'
import { resolveOrder } from './order-resolution.ts'
import { planInstanceKey, ratedOf, rateOrder, type OrderLine, type OrderRating } from './order-rating.ts'
import { previewOf } from './order-preview.ts'
import { USABLE_PLAN_STATUSES, type OrderInput, type OrderProductInput, type ResolvedOffer } from './order.model.ts'
import * as repo from './order.repository.ts'
import { chargeOperation, discountOperation, type OperationOwner } from './wallet-operation.model.ts'
import {
  insertWalletOperations,
  principalWallet,
  reserveWalletOperationIds,
  type WalletOperationValues,
} from './wallet-operation.repository.ts'

/**
 * The rows placement links its instances to: each order offer's subscription by offer position, each order product
 * by `orderProductKey`.
 */
interface OrderLinks {
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

/** Who places or reads an order: recorded as creator; a seller-restricted caller sees only its sellers' orders. */
export interface Caller {
  readonly username: string
  readonly sellerCodes: readonly string[] | null
  /**
   * The roles of a caller coming through the order routes, for the rules asking more than the route's role
   * (`checkOverrideRole`). Absent when another module's service places the order under its own authorization (offer
   * reservations, the demo data), whose orders carry no overrides.
   */
  readonly roles?: ReadonlySet<string>
}

/** The role that unit prices given by the order (chargeOverrides) need on top of the order role. */
export const OVERRIDE_ROLE = 'catalog.pricePlans.manage'

/**
 * An order that sets its own unit prices (chargeOverrides) changes what is billed, which is the price plan managers'
 * call: previewing or creating it needs their role too (FORBIDDEN, before anything is read).
 */
function checkOverrideRole(input: OrderInput, caller: Caller): void {
  if (!caller.roles) return
  const overrides = input.orderOffers.some((o) =>
    (o.orderProducts ?? []).some((p) => (p.chargeOverrides ?? []).length > 0),
  )
  if (overrides && !caller.roles.has(OVERRIDE_ROLE)) {
    throw new AppError('FORBIDDEN', `chargeOverrides need the role ${OVERRIDE_ROLE}`)
  }
}

const decimalEcho = <T extends number | string | null | undefined>(value: T) =>
  value === undefined || value === null ? value : decimalJson(value)

/** An ordered product as echoed: its quantity, override prices and numeric attribute values as exact JSON numbers. */
const productEcho = (product: OrderProductInput) => ({
  ...product,
  ...(product.quantity === undefined ? {} : { quantity: decimalEcho(product.quantity) }),
  ...(product.chargeOverrides
    ? { chargeOverrides: product.chargeOverrides.map((o) => ({ ...o, unitPrice: decimalEcho(o.unitPrice) })) }
    : {}),
  ...(product.orderAttributes
    ? {
        orderAttributes: product.orderAttributes.map((a) =>
          a.doubleValue === undefined ? a : { ...a, doubleValue: decimalEcho(a.doubleValue) },
        ),
      }
    : {}),
})

/** The request as kept: creation gives every offer its subscription code and fixes its subscription date first. */
type KeptOrderInput = Omit<OrderInput, 'orderOffers'> & {
  readonly orderOffers: (OrderInput['orderOffers'][number] & { subscriptionCode: string; subscriptionDate: string })[]
}

/**
 * The order as answered (DECISIONS "Orders"): the request echoed, with id, status and each offer's subscription.
 * Decimals are written from the text kept, never through a double.
 */
async function orderWire(db: Db, order: repo.OrderRow) {
  const offers = await repo.orderOffersOf(db, order.id)
  const { code: _code, orderOffers, ...request } = order.request as unknown as KeptOrderInput
  return {
    id: order.id,
    code: order.code,
    ...request,
    status: order.status,
    orderOffers: orderOffers.map((offer, i) => ({
      ...offer,
      ...(offer.orderProducts ? { orderProducts: offer.orderProducts.map(productEcho) } : {}),
      subscription: {
        code: offers[i]?.subscriptionCode ?? offer.subscriptionCode ?? null,
        status: offers[i]?.subscriptionStatus ?? null,
      },
    })),
  }
}

export type OrderView = Awaited<ReturnType<typeof orderWire>>

/**
 * Orders: preview (rates, creates nothing), creation (a draft keeping the whole request and discount selection, or
 * validated at once) and validation. All three resolve and rate the order with the same functions, so a placement
 * bills exactly what its preview showed.
 */
export function createOrderService(deps: { db: Db; clock: Clock; catalogCache?: CatalogCache; outbox: Outbox }) {
  const { outbox } = deps
  /** DRAFT → VALIDATED reported: its subscriptions are ACTIVE. */
  const orderValidated = (tx: Db, orderId: number, view: OrderView, sellerId: number) =>
    outbox.emit(tx, {
      type: 'order.validated',
      aggregate: { type: 'order', id: orderId },
      object: view,
      previous: { status: 'DRAFT' },
      sellerId,
    })

  const rate = async (db: Db, input: OrderInput, caller: Caller): Promise<OrderRating> =>
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
  async function place(
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
          productInstanceId:
            line.product === null ? null : entryOf(productInstanceOf, line.product, 'product instance'),
          serviceInstanceId:
            line.service === null ? null : entryOf(serviceInstanceOf, line.service, 'service instance'),
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
  async function countPlanUses(tx: Db, rating: OrderRating, caller: Caller): Promise<void> {
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
  async function placing<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    try {
      return await withTransaction(deps.db, work, {
        retryOn: (error) => error instanceof PlacementOutdated || isRetryable(error),
      })
    } catch (error) {
      if (!(error instanceof PlacementOutdated)) throw error
      throw new AppError('INVALID_STATE', 'The discount plans of the order changed while it was placed: try again')
    }
  }

  async function visibleOrder(db: Db, code: string, caller: Caller, lock: boolean) {
    if (lock) await repo.lockOrder(db, code)
    const order = await repo.findOrder(db, code)
    if (!order || (caller.sellerCodes && !caller.sellerCodes.includes(order.sellerCode))) {
      throw new AppError('ENTITY_NOT_FOUND', `Order ${code} not found`)
    }
    return order
  }

  return {
    /** Rates the order as placement would and answers the preview; creates nothing. */
    async preview(input: OrderInput, caller: Caller) {
      checkOverrideRole(input, caller)
      return previewOf(await rate(deps.db, input, caller))
    },

    /**
     * Creates the order: checked and rated like its preview (so it fails where the preview fails), stored with its
     * request and discount selection, its subscriptions CREATED; validated at once with `autoValidate`. An order code
     * not sent is generated (`ORD-` and 8 hexadecimal digits); a subscription code not sent is `<order code>-<n>`.
     */
    async create(sent: OrderInput, autoValidate: boolean, caller: Caller): Promise<OrderView> {
      checkOverrideRole(sent, caller)
      const code = sent.code ?? `ORD-${randomUUID().slice(0, 8).toUpperCase()}`
      // Codes not sent are made up first: discount states count lines per subscription code.
      const input: OrderInput = {
        ...sent,
        code,
        orderOffers: sent.orderOffers.map((o, i) => ({
          ...o,
          subscriptionCode: o.subscriptionCode ?? `${code}-${i + 1}`,
        })),
      }
      return placing(async (tx) => {
        const rating = await rate(tx, input, caller)
        const resolved = rating.order
        // The request as kept: subscription dates fixed now, so a later validation rates the same days.
        const offerAt = new Map(resolved.offers.map((o) => [o.position, o]))
        const request: OrderInput = {
          ...input,
          orderOffers: input.orderOffers.map((o, i) => ({
            ...o,
            subscriptionDate: entryOf(offerAt, i, 'resolved offer').subscriptionDate,
          })),
        }
        // Every offer was given a subscription code above.
        const subscriptionCodeOf = (offer: ResolvedOffer) =>
          present(offer.subscriptionCode, `subscription code of offer ${offer.position}`)
        const inserted = await repo.insertOrder(tx, {
          code,
          description: input.description ?? null,
          externalReference: input.externalReference ?? null,
          orderType: input.orderType ?? 'NEW',
          status: 'DRAFT',
          sellerId: resolved.seller.id,
          billingAccountId: resolved.billingAccount.id,
          userAccountId: resolved.userAccount.id,
          request,
          creator: caller.username,
        })
        const orderId = inserted.id
        const subscriptionIds = await repo.insertSubscriptions(
          tx,
          resolved.offers.map((offer) => ({
            code: subscriptionCodeOf(offer),
            status: 'CREATED',
            subscriptionDate: offer.subscriptionDate,
            offerTemplateId: offer.offer.id,
            sellerId: resolved.seller.id,
            userAccountId: resolved.userAccount.id,
            orderId,
            creator: caller.username,
          })),
        )
        const subscriptionOf = pairIds(resolved.offers, subscriptionIds, 'subscriptions')
        // Each order offer is written with the subscription it creates.
        const offerIds = await repo.insertOrderOffers(
          tx,
          resolved.offers.map((offer) => ({
            orderId,
            position: offer.position,
            subscriptionCode: subscriptionCodeOf(offer),
            orderLineType: offer.orderLineType,
            offerTemplateId: offer.offer.id,
            subscriptionDate: offer.subscriptionDate,
            subscriptionId: entryOf(subscriptionOf, offer, 'subscription'),
          })),
        )
        const orderOfferOf = pairIds(resolved.offers, offerIds, 'order offers')
        const productEntries = resolved.offers.flatMap((offer) =>
          offer.products.map((product) => ({ offer, offerId: entryOf(orderOfferOf, offer, 'order offer'), product })),
        )
        const productIds = await repo.insertOrderProducts(
          tx,
          productEntries.map(({ offerId, product }) => ({
            orderOfferId: offerId,
            position: product.position,
            productId: product.product.id,
            productVersionId: product.version.id,
            quantity: product.quantity.toFixed(),
            attributes: { ...product.attributes },
            chargeOverrides: product.chargeOverrides.map((o) => ({
              chargeCode: o.chargeCode,
              unitPrice: o.unitPrice.toFixed(),
            })),
          })),
        )
        const orderProductOf = pairIds(
          productEntries.map((e) => e.product),
          productIds,
          'order products',
        )
        await repo.insertOrderDiscountPlans(
          tx,
          resolved.plans
            .filter((p) => !p.automatic)
            .map((p) => ({
              orderId,
              orderOfferId: p.offer === null ? null : entryOf(orderOfferOf, p.offer, 'order offer'),
              orderProductId: p.product === null ? null : (orderProductOf.get(p.product) ?? null),
              discountPlanId: p.plan.id,
              level: p.level,
              position: p.position,
            })),
        )
        // The order row is this transaction's own (no other sees it before the commit): no lock to take.
        const links: OrderLinks = {
          subscriptionAt: new Map(resolved.offers.map((o) => [o.position, entryOf(subscriptionOf, o, 'subscription')])),
          orderProducts: new Map(
            productEntries.map(({ offer, product }) => [
              repo.orderProductKey(offer.position, product.position),
              entryOf(orderProductOf, product, 'order product'),
            ]),
          ),
        }
        const order = autoValidate ? await place(tx, inserted, rating, caller, links) : inserted
        const view = await orderWire(tx, order)
        if (autoValidate) await countPlanUses(tx, rating, caller)
        const sellerId = resolved.seller.id
        await outbox.emit(tx, {
          type: 'order.created',
          aggregate: { type: 'order', id: orderId },
          object: view,
          sellerId,
        })
        await outbox.emitMany(
          tx,
          'subscription.created',
          'subscription',
          resolved.offers.map((offer) => ({
            aggregate: { id: entryOf(subscriptionOf, offer, 'subscription') },
            object: {
              code: subscriptionCodeOf(offer),
              status: autoValidate ? 'ACTIVE' : 'CREATED',
              subscriptionDate: offer.subscriptionDate,
              offer: offer.offer.code,
              order: code,
              userAccount: input.userAccountCode,
            },
            sellerId,
          })),
        )
        if (autoValidate) await orderValidated(tx, orderId, view, sellerId)
        return view
      })
    },

    /** DRAFT → VALIDATED: re-checks and rates the stored request with its whole discount selection, then bills. */
    async validate(code: string, caller: Caller): Promise<OrderView> {
      return placing(async (tx) => {
        const order = await visibleOrder(tx, code, caller, true)
        if (order.status !== 'DRAFT') throw new AppError('INVALID_STATE', `Order ${code} is ${order.status}, not DRAFT`)
        const rating = await rate(tx, order.request as unknown as OrderInput, caller)
        const view = await orderWire(tx, await place(tx, order, rating, caller))
        await countPlanUses(tx, rating, caller)
        await orderValidated(tx, order.id, view, rating.order.seller.id)
        return view
      })
    },

    async get(code: string, caller: Caller): Promise<OrderView> {
      return orderWire(deps.db, await visibleOrder(deps.db, code, caller, false))
    },
  }
}

export type OrderService = ReturnType<typeof createOrderService>
