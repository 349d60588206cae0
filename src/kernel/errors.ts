/**
 * The closed set of error codes. Each maps to one HTTP status and, for the report-query family
 * (ErrorV1), to a kebab-case code. docs/errors.md lists exactly these codes; a test keeps them equal.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a field of the request is missing or malformed',
  },
  MISSING_PARAMETER: { status: 400, v1: 'missing-parameter', summary: 'a required field is absent or empty' },
  INVALID_PARAMETER: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a parameter has a value outside what is accepted',
  },
  INVALID_FILTER: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a Query API filter is malformed or names an unknown field or condition',
  },
  INVALID_CRON: { status: 400, v1: 'invalid-parameter', summary: 'a schedule expression field has invalid syntax' },
  MISSING_NAME: { status: 400, v1: 'missing-parameter', summary: 'a billing run schedule name is absent or blank' },
  MISSING_BILLING_CYCLES: {
    status: 400,
    v1: 'missing-parameter',
    summary: 'a billing run schedule names no billing cycle',
  },
  INVALID_REPEATS: { status: 400, v1: 'invalid-parameter', summary: 'repeats is not NONE, DAILY, WEEKLY or MONTHLY' },
  INVALID_PROCESS_TYPE: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'processType is not AUTOMATIC, MANUAL or FULL_AUTOMATIC',
  },
  INVALID_AUTO_ACTION: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'rejectAutoAction or suspectAutoAction is not a known action',
  },
  INVALID_QUERY: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a workbench query (Deep HQL or Expert SQL) is not valid; line and column point at the offending token',
  },
  MALFORMED_JSON: { status: 400, v1: 'invalid-parameter', summary: 'the request body is not valid JSON' },
  INVALID_FORMULA: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a price formula (price_fx) cannot be parsed or evaluated; the message gives the position',
  },
  PRICE_NOT_FOUND: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'no price of the charge matches the given attribute values',
  },
  VALIDATE_FAILED: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'an order uses a discount plan item without accounting article (body status BAD_REQUEST)',
  },
  TAX_NOT_FOUND: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'no tax mapping gives a tax for the tax class of a charge or discount article',
  },
  INVALID_USAGE_RECORD: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a usage record line is malformed; the message and details name the field',
  },
  CHARGE_NOT_FOUND: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'no active usage charge of the subscription matches the usage record’s param1',
  },
  WEBHOOK_URL_REFUSED: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'a webhook endpoint URL is not HTTPS, or its host resolves to a loopback, private or reserved address',
  },
  INVALID_RULE_CONDITION: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'an invoice validation rule condition does not parse; line and column point at the problem',
  },
  OFFER_VALIDATION_FAILED: {
    status: 400,
    v1: 'invalid-parameter',
    summary: 'an offer payload or parameter of /v1/catalog/offers is invalid; details name each field',
  },
  UNAUTHORIZED: { status: 401, v1: 'unauthorized', summary: 'no valid bearer token or session' },
  INSUFFICIENT_BALANCE: {
    status: 402,
    v1: 'insufficient-balance',
    summary: 'a reservation needs more than the available balance; the message states both amounts',
  },
  FORBIDDEN: { status: 403, v1: 'forbidden', summary: 'the caller lacks the role the route needs' },
  ENTITY_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'the named entity or record does not exist' },
  NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'the requested record or route does not exist' },
  SCHEDULE_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no billing run schedule has this code' },
  OFFER_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no offer has this code (/v1/catalog/offers)' },
  BILL_RUN_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no bill run has this id' },
  INVOICE_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no invoice or credit note has this id' },
  RULE_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no invoice validation rule has this code' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no webhook endpoint has this id' },
  EVENT_NOT_FOUND: { status: 404, v1: 'resource-not-found', summary: 'no event has this id (events are kept 30 days)' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    v1: 'method-not-allowed',
    summary: 'the route exists but not for this HTTP method',
  },
  ENTITY_ALREADY_EXISTS: {
    status: 409,
    v1: 'resource-already-exists',
    summary: 'a record with this code already exists',
  },
  SCHEDULE_EXISTS: {
    status: 409,
    v1: 'resource-already-exists',
    summary: 'a billing run schedule with this name already exists',
  },
  OFFER_ALREADY_EXISTS: {
    status: 409,
    v1: 'resource-already-exists',
    summary: 'an offer with this code already exists (/v1/catalog/offers)',
  },
  ENTITY_IN_USE: { status: 409, v1: 'resource-in-use', summary: 'the record is referenced by others or protected' },
  SAVED_QUERY_LIMIT_REACHED: {
    status: 409,
    v1: 'resource-limit-reached',
    summary: 'the caller already owns 500 saved queries (report and workbench queries count together)',
  },
  INVALID_STATE: {
    status: 409,
    v1: 'invalid-state',
    summary: 'the operation is not allowed in the record’s current state',
  },
  INVALID_BILL_RUN_STATE: {
    status: 409,
    v1: 'invalid-state',
    summary: 'the bill run’s state does not allow the action; the message names the state and what it allows',
  },
  INVALID_INVOICE_STATE: {
    status: 409,
    v1: 'invalid-state',
    summary: 'the invoice’s state does not allow the action (a cancelled invoice, a run step still running)',
  },
  INVOICE_VALIDATED: {
    status: 409,
    v1: 'invalid-state',
    summary: 'a validated invoice never changes: correct it with a credit note',
  },
  OFFER_STATUS_TRANSITION_INVALID: {
    status: 422,
    v1: 'invalid-state',
    summary: 'an offer cannot move from its current status to the requested one',
  },
  OFFER_HAS_ACTIVE_SUBSCRIPTIONS: {
    status: 422,
    v1: 'invalid-state',
    summary: 'an offer cannot be deleted while ACTIVE subscriptions use it',
  },
  CREDIT_EXCEEDS_INVOICE: {
    status: 422,
    v1: 'invalid-parameter',
    summary: 'the credit note credits more than is left to credit on the invoice or on one of its lines',
  },
  QUERY_TIMEOUT: {
    status: 408,
    v1: 'query-timeout',
    summary: 'a workbench query ran past its time limit (PostgreSQL server only)',
  },
  QUERY_LIMIT_EXCEEDED: {
    status: 429,
    v1: 'too-many-requests',
    summary: 'the workbench governor refused the query: too many per minute or running at once; see Retry-After',
  },
  PAYLOAD_TOO_LARGE: { status: 413, v1: 'payload-too-large', summary: 'the request body is over 1 MiB' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    v1: 'unsupported-media-type',
    summary: 'the request content type is not accepted',
  },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    v1: 'invalid-parameter',
    summary: 'the requested range starts past the last record; Content-Range gives the total',
  },
  TOO_MANY_REQUESTS: { status: 429, v1: 'too-many-requests', summary: 'too many attempts; retry later' },
  INTERNAL_ERROR: {
    status: 500,
    v1: 'internal-error',
    summary: 'an unexpected failure; the response carries only a request id',
  },
  NOT_IMPLEMENTED: { status: 501, v1: 'not-implemented', summary: 'the feature is announced but not yet available' },
  DATABASE_UNAVAILABLE: {
    status: 503,
    v1: 'database-unavailable',
    summary: 'the database cannot be reached (stopped, restarting, failing over); retry after Retry-After seconds',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    v1: 'service-unavailable',
    summary:
      'the job runtime is not running, a query ran past its statement timeout, or the server is stopping (retry ' +
      'after Retry-After seconds, on a new connection)',
  },
} as const satisfies Record<string, { status: number; v1: string; summary: string }>

export type ErrorCode = keyof typeof ERROR_CODES

/** One bad field of a request: `field` is the path as the client wrote it (`customerAccount`, `cron.hour`). */
export interface ErrorDetail {
  field: string
  message: string
}

/** A domain error: it names a code and a message, never an HTTP status. The edge maps it. */
export class AppError extends Error {
  readonly code: ErrorCode
  readonly details: ErrorDetail[] | undefined
  readonly headers: Record<string, string> | undefined
  /** Where in a query text the problem is (1-based line and column), written beside the message. */
  readonly position: { line: number; column: number } | undefined

  constructor(
    code: ErrorCode,
    message: string,
    options?: {
      details?: ErrorDetail[]
      headers?: Record<string, string>
      position?: { line: number; column: number } | undefined
    },
  ) {
    super(message)
    this.name = 'AppError'
    this.code = code
    this.details = options?.details
    this.headers = options?.headers
    this.position = options?.position
  }

  get status(): number {
    return ERROR_CODES[this.code].status
  }
}

export function validationError(details: ErrorDetail[]): AppError {
  const message = details.map((d) => `${d.field}: ${d.message}`).join('; ')
  return new AppError('VALIDATION_FAILED', message, { details })
}

export const notFound = (what: string, code: string): AppError =>
  new AppError('ENTITY_NOT_FOUND', `${what} ${code} not found`)
