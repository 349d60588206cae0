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

/** RFC 6749 §5.2 error codes (plus `temporarily_unavailable` of §4.1.2.1) for the token endpoint's failures. */
const OAUTH_ERRORS: Partial<Record<ErrorCode, string>> = {
  INTERNAL_ERROR: 'server_error',
  UNAUTHORIZED: 'invalid_client',
  DATABASE_UNAVAILABLE: 'temporarily_unavailable',
  SERVICE_UNAVAILABLE: 'temporarily_unavailable',
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

function describeValidation(errors: AjvError[], context: string | undefined): ErrorDetail[] {
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  for (const e of errors) {
    const base = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.')
    let field = base
    let message: string
    switch (e.keyword) {
      case 'required':
        field = [base, String(e.params.missingProperty)].filter(Boolean).join('.')
        message = 'is required'
        break
      case 'additionalProperties':
        field = [base, String(e.params.additionalProperty)].filter(Boolean).join('.')
        message = 'is not a known field'
        break
      case 'enum':
        message = `expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`
        break
      case 'type':
        message = `expected ${String(e.params.type)}`
        break
      default:
        message = e.message ? `expected a value that ${e.message}` : 'is invalid'
    }
    if (!field) field = PART_NAMES[context ?? ''] ? (context ?? 'body') : 'body'
    else if (context && PART_NAMES[context]) message = `${PART_NAMES[context]} ${message}`
    const key = `${field}:${message}`
    if (seen.has(key)) continue
    seen.add(key)
    details.push({ field, message })
  }
  return details
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
      return send(
        reply,
        request,
        new AppError('VALIDATION_FAILED', details.map((d) => `${d.field}: ${d.message}`).join('; '), { details }),
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
    if (translated?.code === 'DATABASE_UNAVAILABLE') request.log.warn({ err: error }, 'database unavailable')
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
