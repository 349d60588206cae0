import { Type } from '@fastify/type-provider-typebox'
import type { Readable } from 'node:stream'
import { PageQuery as ListPage } from '../../kernel/http/pagination.ts'

/** TypeBox schemas of the workbench routes (Deep queries, schema endpoints, saved workbench queries). */

export const DeepQuerystring = Type.Object(
  {
    // Longer texts reach the parser, whose INVALID_QUERY names the limit (20,000 characters).
    query: Type.String({ minLength: 1, maxLength: 120_000, description: 'The HQL text (Deep subset)' }),
  },
  {
    // Each named parameter `:name` of the text takes its value from the query parameter `name`.
    additionalProperties: Type.String({ maxLength: 10_000 }),
  },
)

/** The rows, sent as the JSON text the database wrote (decimals exact): declared as an array, typed as that text. */
export const DeepRows = Type.Unsafe<string>(
  Type.Array(Type.Object({}, { additionalProperties: true }), {
    description:
      'The rows: entities as the Query API writes them (no select), or objects keyed by the selected expressions',
  }),
)

export const EntityParams = Type.Object({ entity: Type.String({ minLength: 1, maxLength: 300 }) })
export const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 255 }) })

export const EntityNames = Type.Object({ entities: Type.Array(Type.String()) })

export const EntityDescription = Type.Object({
  name: Type.String(),
  fullName: Type.String(),
  parent: Type.Union([Type.String(), Type.Null()]),
  subclasses: Type.Array(Type.String()),
  fields: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.String(),
      nullable: Type.Boolean(),
      relation: Type.Union([
        Type.Object({
          kind: Type.Union([Type.Literal('manyToOne'), Type.Literal('oneToMany')]),
          target: Type.String(),
        }),
        Type.Null(),
      ]),
    }),
  ),
  database: Type.Object({
    tableName: Type.String(),
    columns: Type.Array(Type.Object({ field: Type.String(), column: Type.String() })),
  }),
})

export const ExpertTables = Type.Object({
  tables: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The table, as written in Expert SQL' }),
      columns: Type.Array(
        Type.Object({
          name: Type.String(),
          type: Type.String({ description: 'The field type the query layer gives the column (string, decimal, …)' }),
          references: Type.Union([Type.String(), Type.Null()], {
            description: 'The readable table a foreign key column points to',
          }),
        }),
      ),
    }),
  ),
})

const Visibility = Type.Union([Type.Literal('PUBLIC'), Type.Literal('PROTECTED'), Type.Literal('PRIVATE')])

export const WorkbenchQueryBody = Type.Object(
  {
    code: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    visibility: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
    queryType: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
    queryText: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()])),
    tags: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }), Type.Null()])),
  },
  { additionalProperties: false },
)

export const WorkbenchQuery = Type.Object({
  code: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  targetEntity: Type.Union([Type.String(), Type.Null()]),
  visibility: Visibility,
  tags: Type.Array(Type.String()),
  queryType: Type.Union([Type.Literal('VISUAL'), Type.Literal('HQL'), Type.Literal('NATIVE_SQL')]),
  queryText: Type.Optional(Type.String()),
  advancedQuery: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])),
  aliases: Type.Optional(Type.Record(Type.String(), Type.String())),
  system: Type.Boolean(),
})

/** A page of saved workbench queries: the JSON is written as the queries are read, typed as the stream sending it. */
export const WorkbenchQueryList = Type.Unsafe<Readable>(
  Type.Object({
    total: Type.Integer({ description: 'queries the caller may see (of queryType when given)' }),
    offset: Type.Integer(),
    limit: Type.Integer(),
    data: Type.Array(WorkbenchQuery, { description: 'at most limit queries, by code' }),
  }),
)

export const WorkbenchQueryListQuerystring = Type.Object(
  {
    ...ListPage,
    queryType: Type.Optional(Type.Union([Type.Literal('HQL'), Type.Literal('NATIVE_SQL')])),
  },
  { additionalProperties: false },
)

export const ExpertExecuteBody = Type.Object(
  {
    query: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()])),
    savedQueryCode: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    limit: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    format: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
  },
  { additionalProperties: false },
)

export const ExpertAccepted = Type.Object({
  queryExecutionResultId: Type.Integer(),
  status: Type.Literal('ACCEPTED'),
})

const Instant = Type.String({ format: 'date-time' })

export const ExpertExecution = Type.Object({
  id: Type.Integer(),
  status: Type.Union([
    Type.Literal('SUCCESS'),
    Type.Literal('FAILED'),
    Type.Literal('TIMEOUT'),
    Type.Literal('CANCELLED'),
    Type.Null(),
  ]),
  startDate: Instant,
  endDate: Type.Union([Instant, Type.Null()]),
  lineCount: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  filePath: Type.Union([Type.String(), Type.Null()]),
  queryHash: Type.String(),
  queryText: Type.String(),
  username: Type.String(),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  savedQueryCode: Type.Union([Type.String(), Type.Null()]),
  rowsSoFar: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'Data rows written so far while the run goes on (null before the first batch); once it ended, lineCount. ' +
      'On a server, lines counted as they stream (a value holding a line break counts more until the end)',
  }),
  truncated: Type.Boolean({
    description: 'Whether the result stopped at the row cap (the smaller of maxRowsSync and maxRowsAsync)',
  }),
  truncatedMessage: Type.Union([Type.String(), Type.Null()], {
    description: 'When truncated: the cap in words and the tenant settings that raise it',
  }),
})

export const ExpertExecutionList = Type.Object({
  total: Type.Integer(),
  offset: Type.Integer(),
  limit: Type.Integer(),
  data: Type.Array(ExpertExecution),
})

export const ExecutionParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991 }) })

/** The Expert runs list's paging: the one rule of every list (the tenant's default page size, at most MAX_PAGE_LIMIT). */
export const PageQuerystring = Type.Object(ListPage, { additionalProperties: false })

const cronField = Type.Optional(Type.String({ maxLength: 200 }))

/** The EJB ScheduleExpression of billing run schedules, evaluated in the tenant time zone. */
const CronObject = Type.Object(
  {
    second: cronField,
    minute: cronField,
    hour: cronField,
    dayOfMonth: cronField,
    month: cronField,
    dayOfWeek: cronField,
    year: cronField,
  },
  {
    additionalProperties: false,
    // Every field may be omitted, and a schedule reads back as it was written.
    required: [],
    description:
      'Jakarta EJB ScheduleExpression in the tenant time zone; omitted second, minute and hour are 0, the others *',
  },
)

export const ExpertScheduleBody = Type.Object({ cron: CronObject }, { additionalProperties: false })

export const ExpertSchedule = Type.Object({
  queryCode: Type.String(),
  cron: CronObject,
  nextFireDate: Type.Union([Instant, Type.Null()]),
  lastFireDate: Type.Union([Instant, Type.Null()]),
})
