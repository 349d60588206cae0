import type { Caller } from '../../kernel/caller.ts'
import type { Decimal } from 'decimal.js'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Clock } from '../../kernel/clock.ts'
import type { Db } from '../../kernel/db/database.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import { decimalJson } from '../../kernel/decimal-json.ts'
import { AppError } from '../../kernel/errors.ts'
import { money } from '../../kernel/money.ts'
import { cachedTenantSettings, readTenantSettings } from '../../kernel/settings.ts'
import { periodContaining } from '../accounts/index.ts'
import { createOrderService, dayIn, type OrderInput } from '../ordering/index.ts'
import * as repo from './prepaid.repository.ts'
import { insufficientBalance } from './reservation.model.ts'
import { type ReservationService } from './reservation.service.ts'

export interface OfferReservationInput {
  readonly sellerCode: string
  readonly offerCode: string
  readonly userAccountCode: string
  readonly subscriptionDate: string
  readonly creditLimit: Decimal
}

const MONTHLY = { calendarType: 'PERIOD' as const, periodUnit: 'MONTH' as const, periodLength: 1 }

/**
 * Offer-based wallet reservations: the offer's activation price (its one-shot subscription charges and first
 * recurring periods, with their discounts and tax, rated by the order preview path) held against a credit limit
 * minus the user account's open amounts of the current month. Offer reservations of one user account queue on its
 * row lock, so two cannot both fit under one limit. Confirm places the order (subscription
 * `<seller>_<userAccount>_<offer>`) in the same transaction.
 */
export function createOfferReservationService(deps: {
  db: Db
  clock: Clock
  reservations: ReservationService
  outbox: Outbox
}) {
  const { db, clock, outbox } = deps
  const report = repo.prepaidReport(outbox)

  const orderOf = (
    input: { sellerCode: string; offerCode: string; userAccountCode: string; subscriptionDate: string },
    billingAccountCode: string,
    products: readonly { code: string; quantity: string }[],
  ): OrderInput => ({
    sellerCode: input.sellerCode,
    billingAccountCode,
    userAccountCode: input.userAccountCode,
    orderType: 'NEW',
    orderOffers: [
      {
        subscriptionCode: `${input.sellerCode}_${input.userAccountCode}_${input.offerCode}`,
        offerTemplateCode: input.offerCode,
        subscriptionDate: input.subscriptionDate,
        orderProducts: products.map((p) => ({
          productCode: p.code,
          productActionType: 'CREATE',
          quantity: p.quantity,
        })),
      },
    ],
  })

  /** The open amounts of the user account this month (tenant time zone), this reservation excepted. */
  async function headroom(tx: Db, userAccountId: number, creditLimit: Decimal, except: number | null) {
    const { timeZone } = await readTenantSettings(tx)
    const month = periodContaining(MONTHLY, dayIn(clock.now(), timeZone))
    return creditLimit.minus(await repo.openAmounts(tx, userAccountId, month, except))
  }

  const view = async (tx: Db, id: number) => {
    const found = (await repo.reservationView(tx, id))!
    return {
      ...found,
      reservationId: Number(found.reservationId),
      creditLimit: found.creditLimit === null ? null : decimalJson(found.creditLimit),
      amountWithoutTax: decimalJson(found.amountWithoutTax),
      amountWithTax: decimalJson(found.amountWithTax),
    }
  }

  return {
    async reserve(input: OfferReservationInput, caller: Caller) {
      const settings = await cachedTenantSettings(db)
      return withTransaction(db, async (tx) => {
        // Another seller's account reads as an unknown one (row-level security): same answer, nothing locked.
        const account = await repo.lockUserAccount(tx, input.userAccountCode, caller.sellerCodes)
        if (!account) throw new AppError('ENTITY_NOT_FOUND', `User account ${input.userAccountCode} not found`)
        const offer = await repo.offerProducts(tx, input.offerCode)
        if (!offer) throw new AppError('ENTITY_NOT_FOUND', `Offer ${input.offerCode} not found`)
        const order = orderOf(input, account.billingAccountCode, offer.products)
        // The preview checks the parties as an order would, the caller's seller restriction included.
        const preview = await createOrderService({ db: tx, clock, outbox }).preview(order, caller)
        const amount = money(preview.totalWithTax?.rawJSON ?? '0')
        const withoutTax = money(preview.totalOneTime?.rawJSON ?? '0').plus(preview.totalRecurring?.rawJSON ?? '0')
        const room = await headroom(tx, account.id, input.creditLimit, null)
        if (amount.gt(room)) {
          throw new AppError('INSUFFICIENT_BALANCE', insufficientBalance(amount, room, preview.currency))
        }
        const seller = (await repo.sellerIdByCode(tx, input.sellerCode))!
        const now = clock.now()
        const id = await repo.insertReservation(
          tx,
          {
            type: 'OFFER',
            sellerId: seller,
            userAccountId: account.id,
            subscriptionId: null,
            walletId: null,
            chargeInstanceId: null,
            offerTemplateId: offer.offerId,
            quantity: '1',
            freeQuantity: '0',
            amountWithoutTax: withoutTax.toFixed(),
            amountWithTax: amount.toFixed(),
            counterPeriodValues: {},
            discountTaken: {},
            usageDate: null,
            param1: null,
            param2: null,
            creditLimit: input.creditLimit.toFixed(),
            subscriptionDate: order.orderOffers[0]!.subscriptionDate ?? input.subscriptionDate,
            subscriptionCode: order.orderOffers[0]!.subscriptionCode ?? null,
            reservationDate: now,
            expiryDate: new Date(now.getTime() + settings.prepaidReservationExpirationDelayMs),
          },
          caller.username,
          [],
          report,
        )
        return view(tx, id)
      })
    },

    /** A new credit limit for an OPEN offer reservation: the held amount must still fit (else 402, unchanged). */
    async updateCreditLimit(id: number, creditLimit: Decimal, caller: Caller) {
      const { timeZone } = await cachedTenantSettings(db)
      let result: Awaited<ReturnType<typeof view>> | undefined
      await deps.reservations.withOpen(id, caller, timeZone, 'OFFER', async (tx, r) => {
        const room = await headroom(tx, r.userAccountId, creditLimit, r.id)
        if (money(r.amountWithTax).gt(room)) {
          throw new AppError('INSUFFICIENT_BALANCE', insufficientBalance(money(r.amountWithTax), room, 'of the limit'))
        }
        await repo.updateCreditLimit(tx, r.id, creditLimit.toFixed(), caller.username)
        result = await view(tx, r.id)
        return 'updated'
      })
      return result!
    },

    /** Confirms an OPEN offer reservation: the order is placed (subscription ACTIVE) and the reservation CONFIRMED. */
    async confirm(id: number, caller: Caller) {
      const { timeZone } = await cachedTenantSettings(db)
      let result: Awaited<ReturnType<typeof view>> | undefined
      await deps.reservations.withOpen(id, caller, timeZone, 'OFFER', async (tx, r) => {
        const stored = (await repo.reservationView(tx, r.id))!
        // The reservation's seller was checked visible when it was locked (`withOpen`).
        const account = (await repo.lockUserAccount(tx, stored.userAccountCode, null))!
        const offer = (await repo.offerProducts(tx, stored.offerCode!))!
        const order = orderOf(
          {
            sellerCode: stored.sellerCode,
            offerCode: stored.offerCode!,
            userAccountCode: stored.userAccountCode,
            subscriptionDate: stored.subscriptionDate!,
          },
          account.billingAccountCode,
          offer.products,
        )
        await createOrderService({ db: tx, clock, outbox }).create(order, true, caller)
        await repo.closeReservation(
          tx,
          r.id,
          { status: 'CONFIRMED', consumedQuantity: '1', at: clock.now() },
          caller.username,
          report,
        )
        result = await view(tx, r.id)
        return 'confirmed'
      })
      return result!
    },

    async cancel(id: number, caller: Caller) {
      await deps.reservations.cancel(id, caller, 'OFFER')
      return view(db, id)
    },
  }
}

export type OfferReservationService = ReturnType<typeof createOfferReservationService>
