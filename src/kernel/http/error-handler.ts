import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, ERROR_CODES, type ErrorCode, type ErrorDetail } from '../errors.ts'
import { translateDatabaseError } from '../db/database-errors.ts'
import { describeValidation, type AjvError } from './validation.ts'

export type Family = 'default' | 'v1' | 'query' | 'oauth' | 'offers'

/**
 * The offer interface under `/v1/catalog/offers` answers in the catalog document's own codes: the generic codes its
 * requests can meet (schema validation, a malformed body, an unknown or taken offer code, a unique violation) are
 * written as their OFFER_* counterpart, with the same HTTP status.
 */
const FAMILY_CODES: Partial<Record<Family, Partial<Record<ErrorCode, ErrorCode>>>> = {
  offers: {
    VALIDATION_FAILED: 'OFFER_VALIDATION_FAILED',
    MALFORMED_JSON: 'OFFER_VALIDATION_FAILED',
    ENTITY_NOT_FOUND: 'OFFER_NOT_FOUND',
    ENTITY_ALREADY_EXISTS: 'OFFER_ALREADY_EXISTS',
  },
}

/**
 * The code a family writes: the offer interface's own codes, and on the Query API a schema failure is the
 * INVALID_PARAMETER (INVALID_FILTER for `filters`) the engine would give, whichever check found it first.
 */
function familyCode(family: Family, generic: ErrorCode, details: readonly ErrorDetail[] | undefined): ErrorCode {
  if (family === 'query' && generic === 'VALIDATION_FAILED') {
    return details?.some((d) => d.field === 'filters' || d.field.startsWith('filters.'))
      ? 'INVALID_FILTER'
      : 'INVALID_PARAMETER'
  }
  return FAMILY_CODES[family]?.[generic] ?? generic
}

/**
 * A route family: the error body shape its routes answer in — `Error`, `QueryError` (with `code`), `ErrorV1` or
 * `OAuthError` — and the URL prefixes it owns (an unknown path under one is answered in its shape).
 */
export interface RouteFamily {
  readonly family: Exclude<Family, 'default'>
  readonly prefixes: readonly string[]
}

/**
 * The family of a scope `routeFamily` made, on the scope itself: a Fastify scope's child inherits its properties
 * (its prototype is the parent), so a plugin the family's routes register inside it is of the family too.
 */
const FAMILY = Symbol('errorFamily')
type FamilyScope = FastifyInstance & { [FAMILY]?: Family }

/** The error family of the routes registered on `scope` (the `this` of an onRoute hook); outside one, `default`. */
export function familyOf(scope: FastifyInstance): Family {
  return (scope as FamilyScope)[FAMILY] ?? 'default'
}

/**
 * Registers a family's routes in a Fastify scope of their own, with the family's error handler (encapsulated: it
 * applies to those routes only) and, for each of its prefixes, a not-found handler in its shape.
 */
export async function routeFamily(
  app: FastifyInstance,
  family: RouteFamily,
  register: (scope: FastifyInstance) => void,
): Promise<void> {
  // Awaited: the family's routes are registered now, in the order the app registers its modules (the OpenAPI order).
  await app.register(async (scope) => {
    ;(scope as FamilyScope)[FAMILY] = family.family
    scope.setErrorHandler(errorHandler(family.family))
    register(scope)
  })
  for (const prefix of family.prefixes)
    await app.register(
      async (scope) => {
        scope.setNotFoundHandler(notFoundHandler(family.family))
      },
      { prefix },
    )
}

/** RFC 6749 §5.2 error codes (plus `temporarily_unavailable` of §4.1.2.1) for the token endpoint's failures. */
const OAUTH_ERRORS: Partial<Record<ErrorCode, string>> = {
  INTERNAL_ERROR: 'server_error',
  UNAUTHORIZED: 'invalid_client',
  DATABASE_UNAVAILABLE: 'temporarily_unavailable',
  SERVICE_UNAVAILABLE: 'temporarily_unavailable',
}

export function errorBody(
  family: Family,
  generic: ErrorCode,
  message: string,
  details?: ErrorDetail[],
  requestId?: string,
  position?: { line: number; column: number },
) {
  const code = familyCode(family, generic, details)
  if (family === 'v1') return { status: 'FAIL', message, error_code: ERROR_CODES[code].v1 }
  if (family === 'oauth') {
    const error = OAUTH_ERRORS[code] ?? 'invalid_request'
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
    ...(position ? { line: position.line, column: position.column } : {}),
    ...(code === 'INTERNAL_ERROR' && requestId ? { requestId } : {}),
  }
}

function send(family: Family, reply: FastifyReply, request: FastifyRequest, error: AppError) {
  for (const [k, v] of Object.entries(error.headers ?? {})) void reply.header(k, v)
  return reply
    .status(error.status)
    .type('application/json; charset=utf-8')
    .send(errorBody(family, error.code, error.message, error.details, request.id, error.position))
}

/**
 * A failure as the AppError a client sees: ours as they are; schema validation, body parsing and the database
 * failures a client can cause mapped to their codes. Undefined for anything else (a fault of ours).
 */
export function asAppError(raw: unknown): AppError | undefined {
  if (raw instanceof AppError) return raw
  const error = raw as FastifyError & { validation?: AjvError[]; validationContext?: string }
  if (error.validation) {
    const details = describeValidation(error.validation, error.validationContext)
    return new AppError('VALIDATION_FAILED', details.map((d) => `${d.field}: ${d.message}`).join('; '), { details })
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON')
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body exceeds the 1 MiB limit')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'Content-Length does not match the body')
    default:
  }
  // A 4xx status comes from Fastify or Node's HTTP layer, never from a database driver: a body the client cut off
  // fails with ECONNRESET, which is not the database's socket (it is answered and logged as a client error below).
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) return undefined
  return translateDatabaseError(error)
}

/** The status and body a failure gets in a route family (a bulk request reports each operation's failure so). */
export function errorResponse(family: Family, error: AppError): { status: number; body: Record<string, unknown> } {
  return { status: error.status, body: errorBody(family, error.code, error.message, error.details) }
}

/** A family's error handler: every failure mapped to the AppError table, in its shape; nothing internal reaches a client. */
function errorHandler(family: Family) {
  return (raw: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if ((raw as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return send(
        family,
        reply,
        request,
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Content type ${request.headers['content-type'] ?? '(none)'} is not accepted by this operation: send the ` +
            'body as JSON with the header content-type: application/json (the API documentation gives what each ' +
            'operation takes)',
        ),
      )
    }
    const known = asAppError(raw)
    if (known?.code === 'DATABASE_UNAVAILABLE') request.log.warn({ err: raw }, 'database unavailable')
    if (known) return send(family, reply, request, known)
    const error = raw as FastifyError
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      // A body the client cut off (ECONNRESET) has its own "request aborted" line; its error is only detail.
      if (error.code === 'ECONNRESET') request.log.debug({ err: error }, 'client error')
      else request.log.info({ err: error }, 'client error')
      return send(
        family,
        reply,
        request,
        new AppError('VALIDATION_FAILED', 'The request could not be processed as sent'),
      )
    }
    request.log.error({ err: error }, 'unexpected error')
    return send(
      family,
      reply,
      request,
      new AppError('INTERNAL_ERROR', `An unexpected error occurred (request ${request.id})`),
    )
  }
}

function notFoundHandler(family: Family) {
  return (request: FastifyRequest, reply: FastifyReply) =>
    send(
      family,
      reply,
      request,
      new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`),
    )
}

/** The application's error and not-found handlers, in the default family's shape (families set their own). */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(errorHandler('default'))
  app.setNotFoundHandler(notFoundHandler('default'))
}
