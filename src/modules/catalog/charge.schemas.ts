import { Type } from '@fastify/type-provider-typebox'
import {
  catalogRecord,
  CatalogPage,
  Code,
  Description,
  Enum,
  NewCode,
  NullableCode,
  NullableText,
  RegistryRecord,
} from './catalog.schemas.ts'
import { CHARGE_TYPES, ONE_SHOT_TYPES } from './charge.model.ts'

const ChargeType = Enum(CHARGE_TYPES, 'RECURRING, USAGE or ONESHOT')
const InvoiceSubCategory = Type.String({ ...Code, description: 'code of an invoice sub-category' })
const TaxClass = Type.String({ ...Code, description: 'code of a tax class' })

const fields = {
  description: Type.Optional(Description),
  oneShotType: Type.Optional(
    Type.Unsafe<(typeof ONE_SHOT_TYPES)[number] | null>({
      type: ['string', 'null'],
      enum: [...ONE_SHOT_TYPES, null],
      description: 'ONESHOT only (default SUBSCRIPTION)',
    }),
  ),
  billingCalendar: Type.Optional(NullableCode('code of a calendar: required for RECURRING, refused otherwise')),
  inputUnitOfMeasure: Type.Optional(NullableCode('USAGE only: unit of the usage records')),
  ratingUnitOfMeasure: Type.Optional(NullableCode('USAGE only: unit the price is per')),
  filterParam1: Type.Optional(NullableText(255, 'USAGE only: selects usage records by param1')),
  counterTemplate: Type.Optional(NullableCode('USAGE only: code of a counter template giving free units per period')),
  subscriptionProrata: Type.Optional(Type.Boolean({ description: 'RECURRING only: prorate the first period by days' })),
}

/**
 * A new charge. The invoice sub-category and the tax class (its accounting article needs both) and, for RECURRING, the
 * billing calendar are required, but checked by the service rather than here: one 400 then names every missing field,
 * the calendar first ("the calendar is required for a RECURRING charge").
 */
export const ChargeInput = Type.Object(
  {
    code: NewCode,
    type: ChargeType,
    invoiceSubCategory: Type.Optional(
      Type.String({ ...Code, description: 'code of an invoice sub-category: required (checked with the calendar)' }),
    ),
    taxClass: Type.Optional(
      Type.String({ ...Code, description: 'code of a tax class: required (checked with the calendar)' }),
    ),
    ...fields,
  },
  { $id: 'ChargeInput', title: 'ChargeInput', additionalProperties: false },
)

/** A partial update: null clears an optional field; the type cannot change (accepted when equal). */
export const ChargeUpdate = Type.Object(
  {
    type: Type.Optional(Enum(CHARGE_TYPES, 'cannot change; accepted when equal')),
    invoiceSubCategory: Type.Optional(InvoiceSubCategory),
    taxClass: Type.Optional(TaxClass),
    ...fields,
  },
  { $id: 'ChargeUpdate', title: 'ChargeUpdate', additionalProperties: false },
)

export const Charge = catalogRecord('ChargeTemplate', 'Charge', {})
export const ChargePage = CatalogPage(Charge, 'ChargePage')
export const ChargeArticles = Type.Array(RegistryRecord('AccountingArticle'), {
  description: 'the charge’s own accounting article (none once it was deleted)',
})
