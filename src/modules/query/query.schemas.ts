/**
 * Schemas of the Query API routes: the GET dialect (query parameters), the POST dialect (legacy body names) and the
 * answers. Values are parsed and checked again by the engine, so both dialects refuse a bad value with the same code.
 */
import { Type, type Static } from 'typebox'
import { isPlainObject } from './json-text.ts'

type JsonSchema = Record<string, unknown>

const text = (description: string) => Type.Optional(Type.String({ maxLength: 100_000, description }))
const list = (description: string) =>
  Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 200 }), Type.String({ maxLength: 100_000 })], {
      description,
    }),
  )
const optionalInteger = (description?: string) =>
  Type.Optional(Type.Integer(description === undefined ? { minimum: 0 } : { minimum: 0, description }))
const optionalBoolean = (description?: string) =>
  Type.Optional(Type.Boolean(description === undefined ? {} : { description }))

const entity = Type.String({
  maxLength: 300,
  description: 'Entity: camelCase or simple class name (billingAccount, BillingAccount)',
})

export const entityParams = Type.Object({ entity })
export type EntityParams = Static<typeof entityParams>

export const entityIdParams = Type.Object({
  entity,
  id: Type.String({ maxLength: 100, description: 'Numeric id' }),
})
export type EntityIdParams = Static<typeof entityIdParams>

/** The `:entity` parameter of a route whose params carry no schema (the 405 answers), if it has one. */
export const entityParamOf = (params: unknown): string | undefined =>
  isPlainObject(params) && typeof params.entity === 'string' ? params.entity : undefined

const projection = {
  fields: text(
    'Comma list of fields (dotted paths allowed) or aggregation expressions: SUM(f), COUNT(f), AVG(f), MIN(f), MAX(f), COALESCE(SUM(f), n)',
  ),
  nested: text('Comma list of relations written in full (dotted paths allowed)'),
  depth: optionalInteger('Further levels of relations expanded below each nested relation (default 0)'),
  excluding: text('Comma list of fields dropped from the response'),
}

const fullTextFilter = Type.Optional(
  Type.String({ maxLength: 1000, description: 'Words every row holds in one of its text fields, in any case' }),
)

const filtersParameter = text('URL-encoded JSON object: the filter grammar of the Query API')

export const listQuerystring = Type.Object(
  {
    filters: filtersParameter,
    ...projection,
    offset: optionalInteger('Results to skip (default 0)'),
    limit: optionalInteger('Maximum results (default 100, capped at 1000)'),
    sortBy: text('Field to sort by (dotted paths allowed); id is always the last sort key'),
    sortOrder: text('ASC, DESC, ASCENDING or DESCENDING (any case)'),
    joinType: text('INNER (default), LEFT or RIGHT: join used when a filter or sort touches a related entity'),
    groupBy: text('Comma list of grouping fields (dotted paths allowed)'),
    having: text('Comma list of <AGG>(<field>) <op> <value> conditions, ANDed'),
    forceCount: optionalBoolean('Count huge-volume entities anyway'),
    extractList: optionalBoolean('Answer the bare data array instead of the envelope'),
    fullTextFilter,
  },
  { additionalProperties: false },
)

/** Count takes the list parameters (a client may reuse one query string); paging and projection do not apply. */
export const countQuerystring = listQuerystring

export const getQuerystring = Type.Object({ ...projection, filters: filtersParameter }, { additionalProperties: false })

/** The POST dialect keeps the legacy names: genericFields, nestedEntities, nestedDepth (not fields, nested, depth). */
export const legacyBody = Type.Object(
  {
    // Any JSON: the engine checks it, so a malformed filter is INVALID_FILTER in both dialects.
    filters: Type.Optional(Type.Unknown({ description: 'Filter object (or its JSON text)' })),
    genericFields: list('Fields or aggregation expressions'),
    nestedEntities: list('Relations written in full'),
    nestedDepth: optionalInteger(),
    limit: optionalInteger(),
    offset: optionalInteger(),
    sortBy: Type.Optional(Type.String({ maxLength: 2000 })),
    sortOrder: Type.Optional(Type.String({ maxLength: 200 })),
    joinType: Type.Optional(Type.String({ maxLength: 50 })),
    groupBy: list('Grouping fields'),
    having: list('Post-aggregation conditions'),
    excluding: list('Fields dropped from the response'),
    forceCount: optionalBoolean(),
    extractList: optionalBoolean(),
    fullTextFilter,
  },
  { additionalProperties: false },
)

export const entitiesQuerystring = Type.Object(
  {
    onlyBusinessEntities: Type.Optional(Type.Boolean({ default: false })),
    onlyHugeEntities: Type.Optional(Type.Boolean({ default: false })),
    withFullName: Type.Optional(Type.Boolean({ default: false })),
    withoutPlatformEntities: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "leave out the platform's own records (clients, sessions, audits, settings, jobs, saved queries): the entities a report is written on",
      }),
    ),
  },
  { additionalProperties: false },
)

export const listResponse: JsonSchema = {
  description: 'List envelope, or the bare data array with extractList',
  anyOf: [
    {
      type: 'object',
      // `total` is left out for a huge-volume entity counted only with forceCount; `filters` echoes the request's.
      required: ['limit', 'offset', 'data'],
      properties: {
        total: { type: 'integer' },
        limit: { type: 'integer' },
        offset: { type: 'integer' },
        filters: { type: 'object', additionalProperties: true },
        data: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
    { type: 'array', items: { type: 'object', additionalProperties: true } },
  ],
}

export const countResponse: JsonSchema = {
  type: 'object',
  required: ['total'],
  properties: { total: { type: 'integer' } },
}

export const getResponse: JsonSchema = {
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'object', additionalProperties: true } },
}

export const entitiesResponse: JsonSchema = {
  type: 'object',
  required: ['entities'],
  properties: {
    entities: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string' },
          {
            type: 'object',
            required: ['name', 'fullName'],
            properties: { name: { type: 'string' }, fullName: { type: 'string' } },
          },
        ],
      },
    },
  },
}

export const fieldMappingResponse: JsonSchema = {
  type: 'object',
  required: ['javaName', 'tableName', 'fields'],
  properties: {
    javaName: { type: 'string' },
    tableName: { type: 'string' },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        // `nullable` only when false, `isFK` and `isAssociation` only when true; collections have no column.
        required: ['javaField', 'javaType'],
        properties: {
          javaField: { type: 'string' },
          javaType: { type: 'string' },
          columnName: { type: 'string' },
          nullable: { type: 'boolean' },
          isFK: { type: 'boolean' },
          isAssociation: { type: 'boolean' },
        },
      },
    },
  },
}
