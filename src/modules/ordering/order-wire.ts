import type { Db } from '../../kernel/db/database.ts'
import { decimalJson } from '../../kernel/decimal-json.ts'
import type { OrderInput, OrderProductInput } from './order.model.ts'
import * as repo from './order.repository.ts'

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
export async function orderWire(db: Db, order: repo.OrderRow) {
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
