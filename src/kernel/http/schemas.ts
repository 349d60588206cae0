import { Type, type TSchema } from 'typebox'
import { describePattern } from './validation.ts'

/**
 * Schemas shared by routes, and the helpers that name them in the OpenAPI document.
 *
 * A schema given an `$id` (and the same `title`) is a named schema: wherever routes use it, the document lists it
 * once as `components.schemas.<$id>` and points at it with `$ref` (see `refResolver` in app.ts). Routes use the
 * schema object itself, so handlers stay typed; nothing is registered with `addSchema`, which would make every
 * serializer of every route compile every shared schema. Error bodies are never declared by hand:
 * `errorResponses(...)` adds the statuses a route gives beyond its defaults, and the OpenAPI hook (openapi.ts) writes
 * the shape of the route's family (`Error`, `QueryError`, `ErrorV1`, `OAuthError`).
 */

const ErrorDetail = Type.Object(
  { field: Type.String({ description: 'the request field, `body.x`-style path' }), message: Type.String() },
  { additionalProperties: false },
)

const errorProperties = {
  status: Type.String({ description: '`FAIL` (`BAD_REQUEST` for VALIDATE_FAILED)' }),
  errorCode: Type.String({ description: 'the error code (docs/errors.md)' }),
  message: Type.String(),
  details: Type.Optional(Type.Array(ErrorDetail, { description: 'one entry per refused field' })),
  requestId: Type.Optional(Type.String({ description: 'on INTERNAL_ERROR only: the id to find it in the logs' })),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'in a query text: the line of the offending token' })),
  column: Type.Optional(Type.Integer({ minimum: 1 })),
}

/** The error body of the default family: every route not named below. */
export const ErrorBody = Type.Object(errorProperties, { $id: 'Error', title: 'Error', additionalProperties: false })

/** The Query API's error body: the default one with the code repeated as `code`. */
export const QueryError = Type.Object(
  {
    ...errorProperties,
    code: Type.String({ description: 'the error code again (Query API clients read `code`)' }),
  },
  { $id: 'QueryError', title: 'QueryError', additionalProperties: false },
)

/** The error body of the v1 report routes (`/api/v1/reportQueries`, `reportExtracts`, `reports`). */
export const ErrorV1 = Type.Object(
  {
    status: Type.Literal('FAIL'),
    message: Type.String(),
    error_code: Type.String({ description: 'the v1 code of the error (docs/errors.md)' }),
  },
  { $id: 'ErrorV1', title: 'ErrorV1', additionalProperties: false },
)

/** RFC 6749 §5.2 error body of the token endpoint. */
export const OAuthError = Type.Object(
  {
    error: Type.String({ description: '`invalid_request`, `invalid_client`, `invalid_grant`, `server_error`…' }),
    error_description: Type.String(),
  },
  { $id: 'OAuthError', title: 'OAuthError', additionalProperties: false },
)

/** A value or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** Who created and last changed a record, and when (instants to the millisecond). */
export const Auditable = Type.Object(
  {
    created: Type.String({ format: 'date-time' }),
    updated: Nullable(Type.String({ format: 'date-time' })),
    creator: Nullable(Type.String()),
    updater: Nullable(Type.String()),
  },
  { $id: 'Auditable', title: 'Auditable', additionalProperties: false },
)

/** A whole list (`{ total, data }`), named `$id`. */
export const ListOf = <T extends TSchema>(item: T, $id: string) =>
  Type.Object(
    { total: Type.Integer({ minimum: 0 }), data: Type.Array(item) },
    { $id, title: $id, additionalProperties: false },
  )

/** One page of a list (`{ total, offset, limit, data }`), named `$id`. */
export const PageOf = <T extends TSchema>(item: T, $id: string) =>
  Type.Object(
    {
      total: Type.Integer({ minimum: 0, description: 'records in the whole list' }),
      offset: Type.Integer({ minimum: 0 }),
      limit: Type.Integer({ minimum: 1 }),
      data: Type.Array(item),
    },
    { $id, title: $id, additionalProperties: false },
  )

/** Stands for "the error body of this route's family" in a route's responses until the OpenAPI hook replaces it. */
export const FAMILY_ERROR = Object.freeze({ description: 'error of the route family' })

/** Error statuses a route gives beyond the defaults every route of its kind gets (see `defaultErrorStatuses`). */
export function errorResponses(...statuses: number[]): Record<number, typeof FAMILY_ERROR> {
  return Object.fromEntries(statuses.map((status) => [status, FAMILY_ERROR]))
}

/** A success without a body (204). */
export const NoContent = Type.Null({ description: 'No content' })

/** `:code` path parameter of a record. */
export const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 255 }) })

/** A regular expression matching a word in any case (`asc` → `[Aa][Ss][Cc]`): JSON Schema patterns have no flags. */
const anyCase = (word: string) => Array.from(word, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join('')

/**
 * A string that is one of `words` in any case. Its pattern is registered with the validator's wording, so a refusal
 * reads "expected one of ASC, DESC… (in any case)" rather than the regular expression.
 */
export function anyCaseWord(words: readonly string[], description: string) {
  const pattern = `^(${words.map(anyCase).join('|')})$`
  describePattern(pattern, `expected one of ${words.join(', ')} (in any case)`)
  return Type.String({ pattern, description })
}

/**
 * The pattern of a decimal string: an optional minus, at most `integerDigits` integer digits and at most 12 decimals
 * (the scale of every stored amount and price). Registered with its wording, so a refusal reads "expected a decimal
 * number…" rather than the regular expression.
 */
export function decimalStringPattern(integerDigits: number): string {
  const pattern = `^-?\\d{1,${integerDigits}}(\\.\\d{1,12})?$`
  describePattern(
    pattern,
    `expected a decimal number: a JSON number, or a string of at most ${integerDigits} integer digits and 12 decimals`,
  )
  return pattern
}

/** Paging and sorting of a plain resource list. */
export const ListQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    sortBy: Type.Optional(Type.String({ maxLength: 100, description: 'a field of the record' })),
    // The resource service takes these four words in any case (`asc`, `Desc`…) and refuses any other: the pattern
    // says the same, case by case, so a client is refused what the server refuses and nothing it accepts.
    sortOrder: Type.Optional(
      anyCaseWord(
        ['ASC', 'DESC', 'ASCENDING', 'DESCENDING'],
        '`ASC`, `DESC`, `ASCENDING` or `DESCENDING`, in any case (`asc`, `desc`…)',
      ),
    ),
  },
  { additionalProperties: false },
)

/**
 * An object whose fields are not described yet, named `$id`: every field is sent as the handler builds it. A stopgap
 * for responses still to be described field by field (a generated client sees an open object).
 */
export const OpenObject = ($id: string, description: string) =>
  Type.Object({}, { $id, title: $id, description, additionalProperties: true })

/** The success a route announced but not yet available declares: it answers 501 until then. */
export const Reserved = { type: 'null', 'x-response-description': 'Reserved: this version answers 501 Not Implemented' }
