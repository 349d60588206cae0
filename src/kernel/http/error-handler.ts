import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, ERROR_CODES, type ErrorCode, type ErrorDetail } from '../errors.ts'
import { translateDatabaseError } from '../db/database-errors.ts'

type Family = 'default' | 'v1' | 'query' | 'oauth'

/** The route family decides the error body shape (DECISIONS "Every error is JSON"). */
export function errorFamily(url: string): Family {
  const path = url.split('?')[0] ?? ''
  if (
    path.startsWith('/api/v1/reportQueries') ||
    path.startsWith('/api/v1/reportExtracts') ||
    path.startsWith('/api/v1/reports/')
  )
    return 'v1'
  if (path.startsWith('/api/v1/query') || path.startsWith('/api/rest/v2/generic')) return 'query'
  if (path.startsWith('/auth/realms/')) return 'oauth'
  return 'default'
}

export function errorBody(
  family: Family,
  code: ErrorCode,
  message: string,
  details?: ErrorDetail[],
  requestId?: string,
) {
  if (family === 'v1') return { status: 'FAIL', message, error_code: ERROR_CODES[code].v1 }
  if (family === 'oauth') {
    const error =
      code === 'INTERNAL_ERROR' ? 'server_error' : code === 'UNAUTHORIZED' ? 'invalid_client' : 'invalid_request'
    return { error, error_description: message }
  }
  // The catalog document's discount accounting-article failure has its own exact shape.
  if (code === 'VALIDATE_FAILED' && family === 'default') return { status: 'BAD_REQUEST', errorCode: code, message }
  return {
    status: 'FAIL',
    errorCode: code,
    ...(family === 'query' ? { code } : {}),
    message,
    ...(details && details.length > 0 ? { details } : {}),
    ...(code === 'INTERNAL_ERROR' && requestId ? { requestId } : {}),
  }
}

interface AjvError {
  instancePath: string
  keyword: string
  message?: string
  params: Record<string, unknown>
}

const PART_NAMES: Record<string, string> = {
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
}

/** A JSON-schema failure in words a client can act on: never the schema's own vocabulary (anyOf, $ref…). */
function keywordMessage(e: AjvError, typesAt: ReadonlyMap<string, string[]>): string {
  const limit = e.params.limit as number | undefined
  switch (e.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties':
      return 'is not a known field'
    case 'enum':
      return `expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`
    case 'const':
      return `expected ${String(e.params.allowedValue)}`
    case 'type':
      return `expected ${String(e.params.type)
        .split(',')
        .map((t) => TYPE_WORDS[t] ?? t)
        .join(' or ')}`
    case 'minimum':
      return `expected a number of ${limit} or more`
    case 'maximum':
      return `expected a number of ${limit} or less`
    case 'exclusiveMinimum':
      return `expected a number greater than ${limit}`
    case 'exclusiveMaximum':
      return `expected a number less than ${limit}`
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `expected at least ${limit} characters`
    case 'maxLength':
      return `expected at most ${limit} characters`
    case 'minItems':
      return limit === 1 ? 'must not be empty' : `expected at least ${limit} entries`
    case 'maxItems':
      return `expected at most ${limit} entries`
    case 'minProperties':
      return 'must not be empty'
    case 'maxProperties':
      return `expected at most ${limit} entries`
    case 'uniqueItems':
      return 'expected entries without duplicates'
    case 'format':
      return `expected a valid ${String(e.params.format)}`
    case 'pattern':
      return `does not have the expected form (${String(e.params.pattern)})`
    case 'anyOf':
    case 'oneOf': {
      const types = typesAt.get(e.instancePath)
      return types && types.length > 0
        ? `expected ${[...new Set(types)].map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`
        : 'does not have an accepted form'
    }
    default:
      return 'is invalid'
  }
}

function describeValidation(errors: AjvError[], context: string | undefined): ErrorDetail[] {
  // The types each alternative of an anyOf accepted, by the path of the value they were tried on.
  const typesAt = new Map<string, string[]>()
  for (const e of errors) {
    if (e.keyword === 'type')
      typesAt.set(e.instancePath, [...(typesAt.get(e.instancePath) ?? []), ...String(e.params.type).split(',')])
  }
  const alternatives = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  )
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  for (const e of errors) {
    // The failures inside an anyOf are summed up by the anyOf itself.
    if (e.keyword === 'type' && alternatives.has(e.instancePath)) continue
    const base = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.')
    let field = base
    if (e.keyword === 'required') field = [base, String(e.params.missingProperty)].filter(Boolean).join('.')
    if (e.keyword === 'additionalProperties')
      field = [base, String(e.params.additionalProperty)].filter(Boolean).join('.')
    let message = keywordMessage(e, typesAt)
    if (!field) field = PART_NAMES[context ?? ''] ? (context ?? 'body') : 'body'
    else if (context && PART_NAMES[context]) message = `${PART_NAMES[context]} ${message}`
    const key = `${field}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    details.push({ field, message })
  }
  return details
}

/**
 * The code of a schema failure: the Query API names a bad parameter INVALID_PARAMETER and a bad filter
 * INVALID_FILTER whichever check found it first, the schema or the engine; elsewhere VALIDATION_FAILED.
 */
function validationCode(family: Family, details: readonly ErrorDetail[]): ErrorCode {
  if (family !== 'query') return 'VALIDATION_FAILED'
  return details.some((d) => d.field === 'filters' || d.field.startsWith('filters.'))
    ? 'INVALID_FILTER'
    : 'INVALID_PARAMETER'
}

function send(reply: FastifyReply, request: FastifyRequest, error: AppError) {
  const family = errorFamily(request.url)
  for (const [k, v] of Object.entries(error.headers ?? {})) void reply.header(k, v)
  return reply
    .status(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(family, error.code, error.message, error.details, request.id))
}

/** Maps every failure to the AppError table; nothing internal reaches a client. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw: FastifyError | AppError | Error, request, reply) => {
    if (raw instanceof AppError) return send(reply, request, raw)
    const error = raw as FastifyError & { validation?: AjvError[]; validationContext?: string }
    if (error.validation) {
      const details = describeValidation(error.validation, error.validationContext)
      const code = validationCode(errorFamily(request.url), details)
      return send(
        reply,
        request,
        new AppError(code, details.map((d) => `${d.field}: ${d.message}`).join('; '), { details }),
      )
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(reply, request, new AppError('MALFORMED_JSON', 'The request body is not valid JSON'))
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(reply, request, new AppError('PAYLOAD_TOO_LARGE', 'The request body exceeds the 1 MiB limit'))
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(
          reply,
          request,
          new AppError(
            'UNSUPPORTED_MEDIA_TYPE',
            `Content type ${request.headers['content-type'] ?? ''} is not accepted`,
          ),
        )
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(reply, request, new AppError('VALIDATION_FAILED', 'Content-Length does not match the body'))
      default:
    }
    const translated = translateDatabaseError(error)
    if (translated) return send(reply, request, translated)
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      request.log.info({ err: error }, 'client error')
      return send(reply, request, new AppError('VALIDATION_FAILED', 'The request could not be processed as sent'))
    }
    request.log.error({ err: error }, 'unexpected error')
    return send(reply, request, new AppError('INTERNAL_ERROR', `An unexpected error occurred (request ${request.id})`))
  })

  app.setNotFoundHandler((request, reply) =>
    send(reply, request, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)),
  )
}
