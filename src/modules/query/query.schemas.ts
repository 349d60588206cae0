/** JSON schemas of the Query API routes (§2.5, §4.1). Values are parsed and checked again by the engine. */

type JsonSchema = Record<string, unknown>

const text = (description: string): JsonSchema => ({ type: 'string', maxLength: 100_000, description })
const list = (description: string): JsonSchema => ({
  anyOf: [
    { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 2000 } },
    { type: 'string', maxLength: 100_000 },
  ],
  description,
})

export const entityParams: JsonSchema = {
  type: 'object',
  required: ['entity'],
  properties: {
    entity: {
      type: 'string',
      maxLength: 300,
      description: 'Entity: camelCase or simple class name (billingAccount, BillingAccount)',
    },
  },
}

export const entityIdParams: JsonSchema = {
  type: 'object',
  required: ['entity', 'id'],
  properties: {
    ...(entityParams.properties as JsonSchema),
    id: { type: 'string', maxLength: 100, description: 'Numeric id' },
  },
}

const projection = {
  fields: text(
    'Comma list of fields (dotted paths allowed) or aggregation expressions: SUM(f), COUNT(f), AVG(f), MIN(f), MAX(f), COALESCE(SUM(f), n)',
  ),
  nested: text('Comma list of relations written in full (dotted paths allowed)'),
  depth: {
    type: 'integer',
    minimum: 0,
    description: 'Further levels of relations expanded below each nested relation (default 0)',
  },
  excluding: text('Comma list of fields dropped from the response'),
}

const fullTextFilter: JsonSchema = {
  type: 'string',
  maxLength: 1000,
  description: 'Words every row holds in one of its text fields, in any case',
}

const filtersParameter = text('URL-encoded JSON object: the filter grammar of the Query API')

export const listQuerystring: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    filters: filtersParameter,
    ...projection,
    offset: { type: 'integer', minimum: 0, description: 'Results to skip (default 0)' },
    limit: { type: 'integer', minimum: 0, description: 'Maximum results (default 100, capped at 1000)' },
    sortBy: text('Field to sort by (dotted paths allowed); id is always the last sort key'),
    sortOrder: text('ASC, DESC, ASCENDING or DESCENDING (any case)'),
    joinType: text('INNER (default), LEFT or RIGHT: join used when a filter or sort touches a related entity'),
    groupBy: text('Comma list of grouping fields (dotted paths allowed)'),
    having: text('Comma list of <AGG>(<field>) <op> <value> conditions, ANDed'),
    forceCount: { type: 'boolean', description: 'Count huge-volume entities anyway' },
    extractList: { type: 'boolean', description: 'Answer the bare data array instead of the envelope' },
    fullTextFilter,
  },
}

/** Count takes the list parameters (a client may reuse one query string); paging and projection do not apply. */
export const countQuerystring: JsonSchema = listQuerystring

export const getQuerystring: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...projection, filters: filtersParameter },
}

/** The POST dialect keeps the legacy names (§9): genericFields, nestedEntities, nestedDepth. */
export const legacyBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Any JSON: the engine checks it, so a malformed filter is INVALID_FILTER in both dialects.
    filters: { description: 'Filter object (or its JSON text)' },
    genericFields: list('Fields or aggregation expressions'),
    nestedEntities: list('Relations written in full'),
    nestedDepth: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 0 },
    offset: { type: 'integer', minimum: 0 },
    sortBy: { type: 'string', maxLength: 2000 },
    sortOrder: { type: 'string', maxLength: 200 },
    joinType: { type: 'string', maxLength: 50 },
    groupBy: list('Grouping fields'),
    having: list('Post-aggregation conditions'),
    excluding: list('Fields dropped from the response'),
    forceCount: { type: 'boolean' },
    extractList: { type: 'boolean' },
    fullTextFilter,
  },
}

export const entitiesQuerystring: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    onlyBusinessEntities: { type: 'boolean', default: false },
    onlyHugeEntities: { type: 'boolean', default: false },
    withFullName: { type: 'boolean', default: false },
  },
}

export const listResponse: JsonSchema = {
  description: 'List envelope, or the bare data array with extractList',
  anyOf: [
    {
      type: 'object',
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

export const countResponse: JsonSchema = { type: 'object', properties: { total: { type: 'integer' } } }

export const getResponse: JsonSchema = {
  type: 'object',
  properties: { data: { type: 'object', additionalProperties: true } },
}

export const entitiesResponse: JsonSchema = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'string' },
          { type: 'object', properties: { name: { type: 'string' }, fullName: { type: 'string' } } },
        ],
      },
    },
  },
}

export const fieldMappingResponse: JsonSchema = {
  type: 'object',
  properties: {
    javaName: { type: 'string' },
    tableName: { type: 'string' },
    fields: {
      type: 'array',
      items: {
        type: 'object',
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
