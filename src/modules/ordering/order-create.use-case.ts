import type { Caller } from '../../kernel/caller.ts'
import { randomUUID } from 'node:crypto'
import type { Db } from '../../kernel/db/database.ts'
import { entryOf, pairIds, present } from '../../kernel/invariant.ts'
import { checkOverrideRole } from './order-caller.ts'
import {
  countPlanUses,
  orderValidated,
  place,
  placing,
  rate,
  type OrderDeps,
  type OrderLinks,
} from './order-placement.ts'
import type { OrderRating } from './order-rating.ts'
import { orderWire, type OrderView } from './order-wire.ts'
import type { OrderInput, ResolvedOffer } from './order.model.ts'
import * as repo from './order.repository.ts'

/**
 * The request with the codes not sent made up: the order's (`ORD-` and 8 hexadecimal digits) and each offer's
 * subscription's (`<order code>-<n>`). Made up first: discount states count lines per subscription code.
 */
function withCodes(sent: OrderInput): OrderInput & { code: string } {
  const code = sent.code ?? `ORD-${randomUUID().slice(0, 8).toUpperCase()}`
  return {
    ...sent,
    code,
    orderOffers: sent.orderOffers.map((o, i) => ({
      ...o,
      subscriptionCode: o.subscriptionCode ?? `${code}-${i + 1}`,
    })),
  }
}

/** The request as kept: subscription dates fixed now, so a later validation rates the same days. */
function keptRequest(input: OrderInput, rating: OrderRating): OrderInput {
  const offerAt = new Map(rating.order.offers.map((o) => [o.position, o]))
  return {
    ...input,
    orderOffers: input.orderOffers.map((o, i) => ({
      ...o,
      subscriptionDate: entryOf(offerAt, i, 'resolved offer').subscriptionDate,
    })),
  }
}

/** Every offer was given a subscription code (`withCodes`). */
const subscriptionCodeOf = (offer: ResolvedOffer) =>
  present(offer.subscriptionCode, `subscription code of offer ${offer.position}`)

/**
 * Stores the order DRAFT with its request, its subscriptions CREATED, its order offers, products and listed
 * discount plans; answers the order row, each offer's subscription, and the links placement needs.
 */
async function storeOrder(tx: Db, input: OrderInput & { code: string }, rating: OrderRating, caller: Caller) {
  const resolved = rating.order
  const inserted = await repo.insertOrder(tx, {
    code: input.code,
    description: input.description ?? null,
    externalReference: input.externalReference ?? null,
    orderType: input.orderType ?? 'NEW',
    status: 'DRAFT',
    sellerId: resolved.seller.id,
    billingAccountId: resolved.billingAccount.id,
    userAccountId: resolved.userAccount.id,
    request: keptRequest(input, rating),
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
  return { inserted, subscriptionOf, links }
}

/** The events of a created order: `order.created`, and `subscription.created` for each of its subscriptions. */
async function reportCreated(
  deps: OrderDeps,
  tx: Db,
  input: OrderInput & { code: string },
  rating: OrderRating,
  stored: { inserted: repo.OrderRow; subscriptionOf: ReadonlyMap<ResolvedOffer, number> },
  view: OrderView,
  autoValidate: boolean,
): Promise<void> {
  const resolved = rating.order
  const sellerId = resolved.seller.id
  await deps.outbox.emit(tx, {
    type: 'order.created',
    aggregate: { type: 'order', id: stored.inserted.id },
    object: view,
    sellerId,
  })
  await deps.outbox.emitMany(
    tx,
    'subscription.created',
    'subscription',
    resolved.offers.map((offer) => ({
      aggregate: { id: entryOf(stored.subscriptionOf, offer, 'subscription') },
      object: {
        code: subscriptionCodeOf(offer),
        status: autoValidate ? 'ACTIVE' : 'CREATED',
        subscriptionDate: offer.subscriptionDate,
        offer: offer.offer.code,
        order: input.code,
        userAccount: input.userAccountCode,
      },
      sellerId,
    })),
  )
}

/**
 * Creates the order: checked and rated like its preview (so it fails where the preview fails), stored with its
 * request and discount selection, its subscriptions CREATED; validated at once with `autoValidate`. An order code
 * not sent is generated (`ORD-` and 8 hexadecimal digits); a subscription code not sent is `<order code>-<n>`.
 */
export async function createOrder(
  deps: OrderDeps,
  sent: OrderInput,
  autoValidate: boolean,
  caller: Caller,
): Promise<OrderView> {
  checkOverrideRole(sent, caller)
  const input = withCodes(sent)
  return placing(deps, async (tx) => {
    const rating = await rate(deps, tx, input, caller)
    const stored = await storeOrder(tx, input, rating, caller)
    const order = autoValidate ? await place(tx, stored.inserted, rating, caller, stored.links) : stored.inserted
    const view = await orderWire(tx, order)
    if (autoValidate) await countPlanUses(tx, rating, caller)
    await reportCreated(deps, tx, input, rating, stored, view, autoValidate)
    if (autoValidate) await orderValidated(deps, tx, stored.inserted.id, view, rating.order.seller.id)
    return view
  })
}
