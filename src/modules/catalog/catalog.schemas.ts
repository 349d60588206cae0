import { Type, type Static, type TObject, type TSchema } from '@fastify/type-provider-typebox'
import { PageOf } from '../../kernel/http/schemas.ts'
import { registry } from '../../kernel/model/index.ts'
import type { WireRecord } from '../../kernel/resources/resource.repository.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import { recordSchema } from '../../kernel/resources/resource.schemas.ts'

/*
 * Schema pieces of the catalog routes. A value that may be a string or null is one JSON type list
 * (`["string","null"]`), not an `anyOf`: a wrong value then gets one clear problem ("expected a string or null").
 */

export const Code = Type.String({ minLength: 1, maxLength: 255 })
export const NewCode = Type.String({ minLength: 1, maxLength: 255, pattern: CODE_PATTERN })
export const NullableCode = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], minLength: 1, maxLength: 255, description })
export const NullableText = (maxLength: number, description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, ...(description ? { description } : {}) })
export const Description = NullableText(2000)
export const CodeList = (description: string) => Type.Array(Code, { maxItems: 1000, uniqueItems: true, description })
/** One of a list of words, as a JSON-schema `enum` (a wrong word gets "expected one of …"). */
export const Enum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

export const Version = Type.Integer({ minimum: 1, maximum: 2147483647 })

/** A day (yyyy-MM-dd) or null. */
export const NullableDay = (description: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date', description })

/** Link endpoints take an empty object or no body. */
export const EmptyBody = Type.Unsafe<Record<string, never> | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {},
})

/** The audit block of a catalog record built by a module (not by the generic resource). */
export const CatalogAuditable = Type.Object(
  {
    created: Type.String({ format: 'date-time' }),
    updated: Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' }),
    creator: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
    updater: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
  },
  { additionalProperties: false },
)

/**
 * The named response schema of a registry record (`Charge` for the ChargeTemplate entity): every field, relation (as
 * its code) and the audit block, all always sent, plus the fields the module adds (links as codes). Fields not
 * declared would not be sent: the record is built from the same registry entity.
 */
export function catalogRecord<P extends Record<string, TSchema>>(entity: string, name: string, added: P) {
  const base = recordSchema({ def: registry.get(entity) })
  const addedNames = Object.keys(added)
  return Type.Unsafe<WireRecord & Static<TObject<P>>>({
    ...base,
    $id: name,
    title: name,
    properties: { ...(base.properties as object), ...added },
    required: [...(base.required as string[]), ...addedNames],
  })
}

/** A registry record as the generic resource answers it, under the same name (`AccountingArticle`). */
export const RegistryRecord = (entity: string) => Type.Unsafe<WireRecord>(recordSchema({ def: registry.get(entity) }))

/** One page of catalog records (`ChargePage`). */
export const CatalogPage = <T extends TSchema>(item: T, $id: string) => PageOf(item, $id)
