import { Type, type Static } from '@fastify/type-provider-typebox'
import { decimalStringPattern } from '../../kernel/http/schemas.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'

// One JSON type per schema where a value may take two (a string or null, a number or a decimal string): a wrong value
// then gets one clear problem ("expected string,null") instead of one per alternative.
const NullableText = (maxLength: number, description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, ...(description ? { description } : {}) })
const Decimal = (description: string) =>
  Type.Unsafe<number | string>({
    type: ['number', 'string'],
    pattern: decimalStringPattern(18),
    description: `${description}: a JSON number or a decimal string`,
  })
const NullableDecimal = (description: string) =>
  Type.Unsafe<number | string | null>({
    type: ['number', 'string', 'null'],
    pattern: decimalStringPattern(18),
    description: `${description}: a JSON number, a decimal string or null`,
  })

const Code = Type.String({ minLength: 1, maxLength: 255 })
const NewCode = Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN })
const Codes = (description: string) => Type.Array(Code, { maxItems: 1000, uniqueItems: true, description })
const Instant = (description: string) => Type.String({ maxLength: 40, description })
const INSTANT = 'ISO-8601 date-time with its offset, or a date (the start of that day in the tenant time zone)'

const Component = Type.Object(
  {
    code: Code,
    mandatory: Type.Optional(Type.Boolean()),
    default_quantity: Type.Optional(Decimal('quantity ordered by default (1 when absent)')),
    min_quantity: Type.Optional(NullableDecimal('smallest quantity')),
    max_quantity: Type.Optional(NullableDecimal('largest quantity')),
  },
  { additionalProperties: false, description: 'a product of the offer (offer component, new model)' },
)

const ServiceLink = Type.Object(
  { code: Code, mandatory: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, description: 'a service template of the offer (legacy model)' },
)

const Attributes = Type.Record(
  Type.String({ maxLength: 255 }),
  Type.Unsafe<string | number>({ type: ['string', 'number'], maxLength: 2000 }),
  {
    maxProperties: 200,
    description: 'free-form attributes: each a number or a text',
  },
)

const offerFields = {
  name: Type.Optional(NullableText(255)),
  description: Type.Optional(NullableText(2000)),
  status: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20,
      description:
        'draft, ready, live or retired, or a backend status (IN_STUDY … REJECTED), in any case; a portal word sets the first backend status of its group (an offer already in the group keeps its status)',
    }),
  ),
  valid_from: Type.Optional(Instant(`${INSTANT}; when a new offer omits it, the moment it is created`)),
  valid_to: Type.Optional(NullableText(40, `${INSTANT}; exclusive end, null = open-ended`)),
  product_codes: Type.Optional(
    Codes('the products of the offer (replaces the set; products that stay keep their component settings)'),
  ),
  category_codes: Type.Optional(Codes('offer template categories (replaces the set)')),
  seller_codes: Type.Optional(
    Codes(
      'sellers selling the offer (replaces the set; a seller-restricted caller sets its own sellers, the others stay)',
    ),
  ),
  discount_plan_codes: Type.Optional(Codes('discount plans orders may select (replaces the set)')),
  auto_end_of_engagement: Type.Optional(Type.Boolean()),
  attributes: Type.Optional(Attributes),
  offer_components: Type.Optional(
    Type.Array(Component, { maxItems: 500, description: 'the products with their settings (replaces the set)' }),
  ),
  offer_service_templates: Type.Optional(
    Type.Array(ServiceLink, { maxItems: 500, description: 'legacy model: the services (replaces the set)' }),
  ),
}

export const CreateOfferBody = Type.Object({ code: NewCode, ...offerFields }, { additionalProperties: false })
export const UpsertOfferBody = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 255, description: 'when sent, the code of the path' })),
    newCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        pattern: CODE_PATTERN,
        description: 'renames the offer (409 when taken)',
      }),
    ),
    ...offerFields,
  },
  { additionalProperties: false },
)
export const UpdateOfferBody = Type.Object(offerFields, { additionalProperties: false })
/** The fields every write body shares. */
export type OfferFieldsBody = Static<typeof UpdateOfferBody>

export const CodeParams = Type.Object({ code: Code })
export const ProductParams = Type.Object({ code: Code, product_code: Code })
export const AddProductBody = Type.Object({ product_code: Code }, { additionalProperties: false })

const RANGE = 'a-b: 0-based positions of the first and last offer, inclusive; at most 100 offers (default 0-24)'
const listFilters = {
  status: Type.Optional(Type.String({ maxLength: 200, description: `comma-separated status words (any of them)` })),
  category: Type.Optional(Type.String({ maxLength: 2000, description: 'comma-separated category codes (any)' })),
  seller: Type.Optional(Type.String({ maxLength: 2000, description: 'comma-separated seller codes (any)' })),
  orderable: Type.Optional(
    Type.Boolean({
      description: 'true: only offers in a status an order accepts (ready or live); false: only the others',
    }),
  ),
}
const projection = {
  fields: Type.Optional(
    Type.String({ maxLength: 1000, description: 'comma-separated fields to return (code always)' }),
  ),
  expand: Type.Optional(
    Type.String({ maxLength: 100, description: 'products: each product with its current version' }),
  ),
}

export const ListQuery = Type.Object(
  {
    range: Type.Optional(Type.String({ maxLength: 40, description: RANGE })),
    ...listFilters,
    sort: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'comma-separated keys among code, name, description, status, valid_from, valid_to; - descends',
      }),
    ),
    ...projection,
  },
  { additionalProperties: false },
)
export const CountQuery = Type.Object(listFilters, { additionalProperties: false })
export const GetQuery = Type.Object(projection, { additionalProperties: false })
export const SearchQuery = Type.Object(
  { range: Type.Optional(Type.String({ maxLength: 40, description: `${RANGE}; wins over the body's range` })) },
  { additionalProperties: false },
)

const Filter = (description: string) => Type.Optional(Type.Unknown({ description }))
export const SearchBody = Type.Object(
  {
    filters: Type.Optional(
      Type.Object(
        {
          code: Filter('text'),
          name: Filter('text'),
          description: Filter('text'),
          status: Filter('status words: eq, ne, in'),
          valid_from: Filter('instant: eq, ne, gt, gte, lt, lte, in'),
          valid_to: Filter('instant, absent = open-ended: eq, ne, gt, gte, lt, lte, in'),
          category_codes: Filter('list: eq/contains (holds it), ne (does not), in (holds any)'),
          seller_codes: Filter('list: eq/contains (holds it), ne (does not), in (holds any)'),
          product_codes: Filter('list: eq/contains (holds it), ne (does not), in (holds any)'),
        },
        {
          additionalProperties: false,
          description:
            'field → a value list (any of them), a value (equal), or an operator object with eq, ne, gt, gte, lt, lte, contains, in (all must hold)',
        },
      ),
    ),
    sort: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 })),
    range: Type.Optional(Type.String({ maxLength: 40, description: RANGE })),
    expand: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 5 })),
    fields: Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
)

export const BulkBody = Type.Object(
  {
    operations: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: 1000,
      description: 'each { action: create | upsert | delete, code (upsert, delete), body (create, upsert) }',
    }),
  },
  { additionalProperties: false },
)
/** One bulk operation, checked on its own so a malformed one fails alone. */
export const BulkOperation = Type.Object(
  {
    action: Type.Unsafe<'create' | 'upsert' | 'delete'>({ type: 'string', enum: ['create', 'upsert', 'delete'] }),
    code: Type.Optional(Code),
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
)

// Responses.

const ExpandedProduct = Type.Object({
  code: Type.String(),
  name: NullableText(255),
  product_line: NullableText(255),
  current_version: Type.Union([
    Type.Object({ version: Type.Integer(), status: Type.String(), charge_codes: Type.Array(Type.String()) }),
    Type.Null(),
  ]),
})

export const OfferRecord = Type.Object(
  {
    code: Type.String(),
    name: Type.Optional(NullableText(255)),
    description: Type.Optional(NullableText(2000)),
    status: Type.Optional(Type.String({ description: 'draft, ready, live or retired' })),
    valid_from: Type.Optional(NullableText(40)),
    valid_to: Type.Optional(NullableText(40)),
    product_codes: Type.Optional(Type.Array(Type.String())),
    category_codes: Type.Optional(Type.Array(Type.String())),
    seller_codes: Type.Optional(Type.Array(Type.String())),
    discount_plan_codes: Type.Optional(Type.Array(Type.String())),
    auto_end_of_engagement: Type.Optional(Type.Boolean()),
    attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    offer_components: Type.Optional(
      Type.Array(
        Type.Object({
          code: Type.String(),
          mandatory: Type.Boolean(),
          default_quantity: Type.Number(),
          min_quantity: Type.Union([Type.Number(), Type.Null()]),
          max_quantity: Type.Union([Type.Number(), Type.Null()]),
        }),
      ),
    ),
    offer_service_templates: Type.Optional(Type.Array(Type.Object({ code: Type.String(), mandatory: Type.Boolean() }))),
    products: Type.Optional(Type.Array(ExpandedProduct, { description: 'with expand=products' })),
  },
  { description: 'an offer template (second interface)' },
)
export type OfferRecord = Static<typeof OfferRecord>
export type ExpandedProduct = Static<typeof ExpandedProduct>

export const OfferList = Type.Array(OfferRecord)
export const CountAnswer = Type.Object({ count: Type.Integer() })

/** A bulk operation's failure, the body its single call would have answered. */
const OfferError = Type.Object(
  {
    status: Type.Literal('FAIL'),
    errorCode: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { description: 'the error the single call would have answered' },
)

const BulkResult = Type.Object({
  index: Type.Integer(),
  action: Type.Union([Type.String(), Type.Null()]),
  code: Type.Union([Type.String(), Type.Null()]),
  status: Type.Integer({ description: 'the HTTP status the single call would have answered' }),
  body: Type.Optional(OfferRecord),
  error: Type.Optional(OfferError),
})
export const BulkAnswer = Type.Object({ results: Type.Array(BulkResult) })
export type BulkResult = Static<typeof BulkResult>
