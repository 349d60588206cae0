import type { Caller } from '../../kernel/caller.ts'
import { type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { errorResponses } from '../../kernel/http/schemas.ts'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decimalJson } from '../../kernel/decimal-json.ts'
import { validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { principalOf } from '../../kernel/http/principal.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { readDecimal } from '../pricing/index.ts'
import {
  ActionAnswer,
  CancelBody,
  ConfirmBody,
  CreateWalletBody,
  CreditBody,
  ReserveAnswer,
  UsageLineBody,
  UserAccountParams,
  CreditLimitBody,
  OfferReservation,
  OfferReservationBody,
  ReservationParams,
  Wallet,
  WalletList,
  WalletParams,
  UpdateWalletBody,
} from './prepaid.schemas.ts'
import type { ReservationService } from './reservation.service.ts'
import type { WalletService, WalletView } from './wallet.service.ts'
import type { OfferReservationService } from './offer-reservation.service.ts'

const MEDIATION = '/api/rest/billing/mediation'
const WALLETS = '/api/v1/userAccounts/:code/wallets'
const OFFER_RESERVATIONS = '/api/rest/billing/wallet/reservation'

/** A decimal field of a body, read exactly; 400 naming the field when it cannot be stored. */
function decimalField(value: number | string, field: string, bounds: Parameters<typeof readDecimal>[3] = {}) {
  const problems: ErrorDetail[] = []
  const parsed = readDecimal(value, field, problems, bounds)
  if (!parsed) throw validationError(problems)
  return parsed
}

const walletWire = (w: WalletView) => ({
  ...w,
  balance: decimalJson(w.balance.toFixed()),
  reserved: decimalJson(w.reserved.toFixed()),
  available: decimalJson(w.available.toFixed()),
  lowBalanceLevel: w.lowBalanceLevel === null ? null : decimalJson(w.lowBalanceLevel.toFixed()),
})

/** An optional decimal field that may be null (none): read exactly, 400 naming it when it cannot be stored. */
const optionalDecimal = (value: number | string | null | undefined, field: string) =>
  value === undefined || value === null ? value : decimalField(value, field)

/** Prepaid usage reservations (`billing.wallets.manage`) and prepaid wallets (`billing.wallets.*`). */
export function registerPrepaidRoutes(
  server: FastifyInstance,
  deps: {
    reservations: ReservationService
    offerReservations: OfferReservationService
    wallets: WalletService
    actorOf: ActorOf
  },
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const manage = { policy: { role: 'billing.wallets.manage' } }
  const view = { policy: { role: 'billing.wallets.view' } }
  const reservationTags = ['Prepaid reservations']
  const walletTags = ['Prepaid wallets']
  const caller = (request: FastifyRequest): Caller => principalOf(request)

  app.post(
    `${MEDIATION}/reserveCdr`,
    {
      config: manage,
      schema: {
        tags: reservationTags,
        summary: 'Reserve one usage line: free counter units first, the rest held against the prepaid wallet',
        description:
          'Body: one usage line as text/plain (or a JSON string). Answers the reservation id, the quantity still ' +
          'available and the amount held. 402 INSUFFICIENT_BALANCE holds nothing; 400 INVALID_USAGE_RECORD names ' +
          'the field; 400 CHARGE_NOT_FOUND when no usage charge matches param1.',
        // Mediation systems post the line as text; a JSON string is read the same.
        consumes: ['text/plain', 'application/json'],
        body: UsageLineBody,
        response: { 200: ReserveAnswer, ...errorResponses(402, 404) },
      },
    },
    async (request) => {
      const answer = await deps.reservations.reserve(request.body, caller(request))
      return {
        reservationId: answer.reservationId,
        availableQuantity: decimalJson(answer.availableQuantity.toFixed()),
        amountWithTax: decimalJson(answer.amountWithTax.toFixed()),
      }
    },
  )

  app.post(
    `${MEDIATION}/confirmReservation`,
    {
      config: manage,
      schema: {
        tags: reservationTags,
        summary: 'Confirm an OPEN reservation: the consumed quantity (default all) is charged, the rest released',
        description:
          '404 ENTITY_NOT_FOUND for an unknown id; 409 INVALID_STATE when the reservation is not OPEN; 402 ' +
          'INSUFFICIENT_BALANCE when the consumed part, rated again, costs more than the hold and the available ' +
          'balance together (the reservation stays OPEN: cancel it, or confirm less).',
        body: ConfirmBody,
        response: { 200: ActionAnswer, ...errorResponses(402, 404) },
      },
    },
    async (request) => {
      const { reservationId, consumedQuantity } = request.body
      const consumed =
        consumedQuantity === undefined ? undefined : decimalField(consumedQuantity, 'consumedQuantity', { min: 0 })
      const message = await deps.reservations.confirm(reservationId, consumed, caller(request))
      return { status: 'SUCCESS' as const, message }
    },
  )

  app.post(
    `${MEDIATION}/cancelReservation`,
    {
      config: manage,
      schema: {
        tags: reservationTags,
        summary: 'Cancel an OPEN reservation: counters and balance restored, once',
        description: '404 ENTITY_NOT_FOUND for an unknown id; 409 INVALID_STATE when the reservation is not OPEN.',
        body: CancelBody,
        response: { 200: ActionAnswer, ...errorResponses(404) },
      },
    },
    async (request) => {
      const message = await deps.reservations.cancel(request.body.reservationId, caller(request))
      return { status: 'SUCCESS' as const, message }
    },
  )

  app.get(
    WALLETS,
    {
      config: view,
      schema: {
        tags: walletTags,
        summary: 'The wallets of a user account, with balance, reserved and available amounts',
        params: UserAccountParams,
        response: { 200: WalletList },
      },
    },
    async (request) => (await deps.wallets.list(request.params.code, caller(request))).map(walletWire),
  )

  app.post(
    WALLETS,
    {
      config: manage,
      schema: {
        tags: walletTags,
        summary: 'Create a PREPAID wallet for a user account (in its billing account’s currency)',
        params: UserAccountParams,
        body: CreateWalletBody,
        response: { 201: Wallet },
      },
    },
    async (request, reply) => {
      const input = {
        ...request.body,
        lowBalanceLevel: optionalDecimal(request.body.lowBalanceLevel, 'lowBalanceLevel'),
      }
      return reply.status(201).send(walletWire(await deps.wallets.create(request.params.code, input, caller(request))))
    },
  )

  app.put(
    `${WALLETS}/:walletCode`,
    {
      config: manage,
      schema: {
        tags: walletTags,
        summary: 'Change a wallet’s description or low-balance level',
        description:
          'A PREPAID wallet reports wallet.balance_low when a change of its balance takes its available amount ' +
          '(balance − reserved) from at or above lowBalanceLevel to below it; null removes the level.',
        params: WalletParams,
        body: UpdateWalletBody,
        response: { 200: Wallet },
      },
    },
    async (request) => {
      const input = {
        ...request.body,
        lowBalanceLevel: optionalDecimal(request.body.lowBalanceLevel, 'lowBalanceLevel'),
      }
      return walletWire(
        await deps.wallets.update(request.params.code, request.params.walletCode, input, caller(request)),
      )
    },
  )

  app.post(
    `${WALLETS}/:walletCode/credits`,
    {
      config: manage,
      schema: {
        tags: walletTags,
        summary: 'Credit a PREPAID wallet; answers the wallet after the credit',
        description: 'The amount is positive, with at most the decimals of the wallet’s currency (else 400).',
        params: WalletParams,
        body: CreditBody,
        response: { 201: Wallet },
      },
    },
    async (request, reply) => {
      const amount = decimalField(request.body.amount, 'amount', { minExclusive: 0 })
      const wallet = await deps.wallets.credit(
        request.params.code,
        request.params.walletCode,
        { amount, reference: request.body.reference ?? null },
        caller(request),
      )
      return reply.status(201).send(walletWire(wallet))
    },
  )

  const offerTags = ['Offer reservations']
  const offerErrors =
    '402 INSUFFICIENT_BALANCE above the credit limit minus the user account’s open amounts of the month; ' +
    '404 ENTITY_NOT_FOUND; 409 INVALID_STATE when the reservation is not OPEN.'

  app.post(
    OFFER_RESERVATIONS,
    {
      config: manage,
      schema: {
        tags: offerTags,
        summary:
          'Reserve an offer’s activation price (one-shot charges and first recurring periods) under a credit limit',
        description: offerErrors,
        body: OfferReservationBody,
        response: { 200: OfferReservation, ...errorResponses(402, 404) },
      },
    },
    async (request) => {
      const { creditLimit, ...rest } = request.body
      return deps.offerReservations.reserve(
        { ...rest, creditLimit: decimalField(creditLimit, 'creditLimit', { min: 0 }) },
        caller(request),
      )
    },
  )

  app.put(
    OFFER_RESERVATIONS,
    {
      config: manage,
      schema: {
        tags: offerTags,
        summary: 'Change the credit limit of an OPEN offer reservation',
        description: offerErrors,
        body: CreditLimitBody,
        response: { 200: OfferReservation, ...errorResponses(402, 404) },
      },
    },
    async (request) =>
      deps.offerReservations.updateCreditLimit(
        request.body.reservationId,
        decimalField(request.body.creditLimit, 'creditLimit', { min: 0 }),
        caller(request),
      ),
  )

  app.delete(
    `${OFFER_RESERVATIONS}/:reservationId`,
    {
      config: manage,
      schema: {
        tags: offerTags,
        summary: 'Cancel an OPEN offer reservation',
        description: offerErrors,
        params: ReservationParams,
        response: { 200: OfferReservation, ...errorResponses(402, 404) },
      },
    },
    async (request) => deps.offerReservations.cancel(request.params.reservationId, caller(request)),
  )

  app.post(
    `${OFFER_RESERVATIONS}/confirm`,
    {
      config: manage,
      schema: {
        tags: offerTags,
        summary: 'Confirm an OPEN offer reservation: the subscription <seller>_<userAccount>_<offer> is ordered',
        description: offerErrors,
        body: CancelBody,
        response: { 200: OfferReservation, ...errorResponses(402, 404) },
      },
    },
    async (request) => deps.offerReservations.confirm(request.body.reservationId, caller(request)),
  )
}
