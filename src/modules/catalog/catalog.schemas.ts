import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'

export const codeString = { type: 'string', minLength: 1, maxLength: 255 }
export const newCode = { type: 'string', minLength: 1, maxLength: 255, pattern: CODE_PATTERN }
export const nullableCode = { type: ['string', 'null'], minLength: 1, maxLength: 255 }
export const description = { type: ['string', 'null'], maxLength: 2000 }
export const codeList = { type: 'array', maxItems: 1000, uniqueItems: true, items: codeString }

export const params = (...names: string[]) => ({
  type: 'object',
  required: names,
  properties: Object.fromEntries(
    names.map((name) => [name, name === 'version' ? { type: 'integer', minimum: 1, maximum: 2147483647 } : codeString]),
  ),
})

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1 },
    sortBy: { type: 'string', maxLength: 100 },
    sortOrder: { type: 'string', maxLength: 20 },
  },
}

/** Responses document their main fields and let the others through (nothing is silently dropped). */
export const openObject = { type: 'object', additionalProperties: true }
export const listOf = (item: object) => ({
  type: 'object',
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: { type: 'array', items: item },
  },
})

/** Link endpoints take an empty object or no body. */
export const emptyBody = { type: ['object', 'null'], additionalProperties: false, properties: {} }
