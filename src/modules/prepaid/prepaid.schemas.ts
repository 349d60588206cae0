import { Type } from '@fastify/type-provider-typebox'
import type { DecimalJson } from '../../kernel/decimal-json.ts'
import { decimalOut } from '../../kernel/decimal-json.ts'
import { decimalSchema } from '../pricing/index.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'

const Code = Type.String({ minLength: 1, maxLength: 255 })
const NewCode = Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN })
const DecimalIn = Type.Unsafe<number | string>(decimalSchema)
const DecimalOut = Type.Unsafe<DecimalJson>(decimalOut)
/** A nullable string without `anyOf`: the response serializer then needs no schema validator. */
const NullableText = Type.Unsafe<string | null>({ type: ['string', 'null'] })
const ReservationId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the reservation id' })

/** One usage line, as text/plain or as a JSON string. */
export const UsageLineBody = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: '`<yyyy-MM-ddTHH:mm:ss>;<subscription_code>;<quantity>;<param1>;<param2>`',
})

export const ReserveAnswer = Type.Object({
  reservationId: Type.Integer(),
  availableQuantity: DecimalOut,
  amountWithTax: DecimalOut,
})

export const ConfirmBody = Type.Object(
  {
    reservationId: ReservationId,
    consumedQuantity: Type.Optional(DecimalIn),
  },
  { additionalProperties: false },
)

export const CancelBody = Type.Object({ reservationId: ReservationId }, { additionalProperties: false })

export const ActionAnswer = Type.Object({ status: Type.Literal('SUCCESS'), message: Type.String() })

export const UserAccountParams = Type.Object({ code: Code })
export const WalletParams = Type.Object({ code: Code, walletCode: Code })

export const CreateWalletBody = Type.Object(
  {
    code: NewCode,
    walletType: Type.Literal('PREPAID'),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    lowBalanceLevel: Type.Optional(Type.Union([DecimalIn, Type.Null()])),
  },
  { additionalProperties: false },
)

export const UpdateWalletBody = Type.Object(
  {
    description: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    lowBalanceLevel: Type.Optional(Type.Union([DecimalIn, Type.Null()])),
  },
  { additionalProperties: false },
)

export const CreditBody = Type.Object(
  {
    amount: DecimalIn,
    reference: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  },
  { additionalProperties: false },
)

export const Wallet = Type.Object({
  code: Type.String(),
  walletType: Type.String(),
  currency: Type.String(),
  balance: DecimalOut,
  reserved: DecimalOut,
  available: DecimalOut,
  /** `wallet.balance_low` is reported when the available amount falls below it (null: never). */
  lowBalanceLevel: Type.Union([DecimalOut, Type.Null()]),
})
export const WalletList = Type.Array(Wallet)

export const OfferReservationBody = Type.Object(
  {
    sellerCode: Code,
    offerCode: Code,
    userAccountCode: Code,
    subscriptionDate: Type.String({ format: 'date', description: 'yyyy-MM-dd' }),
    creditLimit: DecimalIn,
  },
  { additionalProperties: false },
)

export const CreditLimitBody = Type.Object(
  { reservationId: ReservationId, creditLimit: DecimalIn },
  { additionalProperties: false },
)

export const ReservationParams = Type.Object({
  reservationId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
})

export const OfferReservation = Type.Object({
  reservationId: Type.Integer(),
  type: Type.String(),
  status: Type.String(),
  sellerCode: Type.String(),
  userAccountCode: Type.String(),
  offerCode: NullableText,
  subscriptionCode: NullableText,
  subscriptionDate: NullableText,
  creditLimit: Type.Unsafe<DecimalJson | null>(decimalOut),
  amountWithoutTax: DecimalOut,
  amountWithTax: DecimalOut,
  reservationDate: Type.String(),
  expiryDate: Type.String(),
})
