import type { FastifyInstance, RouteOptions } from 'fastify'
import { familyOf, type Family } from './error-handler.ts'
import type { RoutePolicy } from './route-policy.ts'
import { ErrorBody, ErrorV1, FAMILY_ERROR, NoContent, OAuthError, QueryError } from './schemas.ts'

/**
 * The OpenAPI document's conventions, applied to every route as it is registered:
 * - every operation has an `operationId`: the route's own `schema.operationId`, else one derived from its method and
 *   path (`operationIdOf`). Routes whose derived name reads badly set their own (`previewOrder`, `rotateClientSecret`).
 * - every tag an operation uses is declared in `TAGS`, with a description, in the order a newcomer reads them.
 * - a DELETE declaring no success answers 204 without content.
 * - every operation declares the error statuses it can give (`defaultErrorStatuses`, plus the ones a route adds with
 *   `errorResponses(...)`), each with the error body of its route family.
 */

/** The document's tags in reading order. A route using a tag not listed here fails the OpenAPI contract test. */
export const TAGS: readonly { name: string; description: string }[] = [
  {
    name: 'Authentication',
    description:
      'OAuth 2.0 token endpoint (the client credentials grant), its signing keys and discovery document, and the ' +
      'caller’s own session. Start here: every other operation needs the bearer token it gives. People with a ' +
      'password sign in through the portal (`POST /api/portal/login`, then `GET /api/portal/token`).',
  },
  { name: 'Health', description: 'Liveness, readiness and Prometheus metrics, for load balancers and monitoring.' },
  {
    name: 'Roles',
    description: 'The roles a group can grant: `<domain>.<resource>.<view|manage>` and the composites.',
  },
  { name: 'Groups', description: 'Groups hold roles and an optional seller restriction; users and clients join them.' },
  { name: 'Users', description: 'People who sign in with a password, through the portal.' },
  { name: 'Clients', description: 'Service accounts using the client-credentials grant; the secret is shown once.' },
  { name: 'Portal', description: 'The browser session of the web portal: cookie login, CSRF-protected writes.' },
  { name: 'Seller', description: 'Sellers: the legal entities that bill; a group may be restricted to some of them.' },
  { name: 'Customer', description: 'Customers, the top of the account hierarchy under a seller.' },
  { name: 'CustomerAccount', description: 'Customer accounts: who pays, under a customer.' },
  {
    name: 'BillingAccount',
    description: 'Billing accounts: where invoices go, with their billing cycle and currency.',
  },
  {
    name: 'UserAccount',
    description: 'User accounts: who consumes, under a billing account; orders are placed for them.',
  },
  { name: 'TradingCurrency', description: 'Currencies the platform trades in.' },
  { name: 'Country', description: 'Countries, for addresses and tax mappings.' },
  { name: 'Language', description: 'Languages, for customer communication.' },
  { name: 'Title', description: 'Titles of customers (Mr, Mrs, Company…); `isCompany` marks a company’s.' },
  { name: 'Calendar', description: 'Calendars: the periods billing cycles and recurring charges follow.' },
  { name: 'BillingCycle', description: 'Billing cycles: when billing accounts are invoiced.' },
  { name: 'UnitOfMeasure', description: 'Units that usage and quantities are counted in.' },
  { name: 'Tax', description: 'Tax rates.' },
  { name: 'TaxClass', description: 'Tax classes of accounting articles.' },
  { name: 'TaxMapping', description: 'Which tax applies to a tax class, for a seller country and a customer country.' },
  { name: 'InvoiceCategory', description: 'Invoice categories: how invoice lines are grouped.' },
  { name: 'InvoiceSubCategory', description: 'Invoice sub-categories under an invoice category.' },
  { name: 'AccountingArticle', description: 'Accounting articles: where a charge’s amounts are booked and taxed.' },
  { name: 'CustomFieldTemplate', description: 'Custom fields an entity accepts (`cfValues`), with their type.' },
  { name: 'TenantSetting', description: 'Settings of the tenant: time zone, rounding, defaults.' },
  { name: 'Attribute', description: 'Product attributes that orders give values to.' },
  { name: 'ChargeTemplate', description: 'Charges: one-shot, recurring and usage charges of a product.' },
  { name: 'Pricing', description: 'Versioned pricing of a charge: draft, publish, evaluate.' },
  { name: 'Product', description: 'Products, the sellable units of an offer.' },
  { name: 'ProductVersion', description: 'Versions of a product with their attributes and charges, and their status.' },
  { name: 'OfferTemplateCategory', description: 'Categories of offers.' },
  { name: 'OfferTemplate', description: 'Offers: the products a customer subscribes to together.' },
  { name: 'ServiceTemplate', description: 'Service templates of an offer.' },
  { name: 'DiscountPlan', description: 'Discount plans and their activation.' },
  { name: 'DiscountPlanItem', description: 'Items of a discount plan: what is discounted, by how much.' },
  {
    name: 'Offers (second interface)',
    description: 'The catalog offer interface under `/v1/catalog/offers`, with its own error codes and paging.',
  },
  { name: 'CounterTemplate', description: 'Counters of free units that usage charges draw from before paying.' },
  { name: 'Order', description: 'Orders: preview, place and validate, rated against the published catalog.' },
  {
    name: 'Prepaid wallets',
    description: 'Prepaid wallets of a user account: balance, reserved and available amounts, credits.',
  },
  {
    name: 'Prepaid reservations',
    description: 'Usage reserved against a prepaid wallet, then confirmed or cancelled; unconfirmed ones expire.',
  },
  { name: 'Offer reservations', description: 'An offer’s price held on a wallet, then confirmed into an order.' },
  {
    name: 'BillingRuns',
    description:
      'Bill runs: the OPEN wallet operations of a billing cycle become invoice lines, draft invoices, then validated ' +
      'invoices; `processType` decides where a run waits for a person (`advance`).',
  },
  {
    name: 'Invoices',
    description:
      'Invoices and credit notes: totals per tax rate, validation, cancel, move; the invoice preview of an account.',
  },
  {
    name: 'InvoiceValidationRules',
    description:
      'Rules checked on every draft invoice: a pricing formula that, when true, makes it SUSPECT or REJECTED.',
  },
  { name: 'InvoiceSequences', description: 'Gapless invoice numbering per seller and invoice type.' },
  {
    name: 'AccountOperations',
    description: 'The receivables validated invoices (DEBIT) and credit notes (CREDIT) create.',
  },
  { name: 'BillingRunSchedules', description: 'Schedules that start billing runs on a timer.' },
  { name: 'Jobs', description: 'Background jobs: their timers, manual runs and executions.' },
  {
    name: 'Webhooks',
    description:
      'Endpoints receiving events, signed by the Standard Webhooks scheme, retried on a schedule; their deliveries.',
  },
  { name: 'Events', description: 'The outbox: every state change written with it, kept 30 days.' },
  {
    name: 'Query API',
    description: 'Read any registry entity with filters, projections, sorting and aggregates; rows the caller may see.',
  },
  { name: 'Report queries', description: 'Saved report queries, their executions, schedules and exported files.' },
  {
    name: 'Overview',
    description: "The landing screen's figures: operations rated today and this month, reservations, next bill runs.",
  },
  { name: 'Query workbench', description: 'Deep (HQL) queries, the schema editors complete from, saved queries.' },
  {
    name: 'Opencell generic API v2',
    description:
      'Opencell’s generic API, read side, for tools written for Opencell: the Query API’s engine. HEAD answers as GET ' +
      'without a body; Opencell’s writes answer 405 naming the v1 resource to write through.',
  },
  {
    name: 'Opencell generic API v2 under /opencell',
    description:
      'The same operations under Opencell’s default context path (`/opencell/api/rest/v2`), for clients configured ' +
      'with it; their operationIds end in `AtContextPath`.',
  },
]

/**
 * OAuth 2.0 client credentials against the token endpoint (Swagger UI's Authorize gets a token from a client id and
 * secret), a bearer token pasted as is, and the portal's session cookie.
 */
export function securitySchemes(publicUrl: string, auth: { realm: string; issuerUrl: string | undefined }) {
  const issuer = auth.issuerUrl?.replace(/\/$/, '') ?? `${publicUrl.replace(/\/$/, '')}/auth/realms/${auth.realm}`
  return {
    oauth2: {
      type: 'oauth2',
      description: 'Client credentials grant: a client id and secret (POST /api/v1/clients) give a bearer token.',
      flows: { clientCredentials: { tokenUrl: `${issuer}/protocol/openid-connect/token`, scopes: {} } },
    },
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A token obtained beforehand.' },
    portalSession: { type: 'apiKey', in: 'cookie', name: 'obol_session', description: 'The portal session cookie.' },
  } as const
}

const PREFIXES = [/^\/auth\/realms\/:realm\/protocol\/openid-connect/, /^\/auth\/realms\/:realm/, /^\/api\/(v1|rest)/]

function upperFirst(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1)
}

/** The singular of a camelCase plural path segment (`taxClasses` → `taxClass`, `unitsOfMeasure` → `unitOfMeasure`). */
export function singular(segment: string): string {
  const [head = '', ...rest] = segment.split(/(?=[A-Z])/)
  const tail = rest.join('')
  // A compound whose first word is the plural one (unitsOfMeasure).
  if (rest.length > 0 && rest[0] === 'Of') return singular(head) + tail
  const word = tail || head
  let one = word
  if (/ies$/.test(word)) one = word.replace(/ies$/, 'y')
  else if (/(ss|x|ch|sh)es$/.test(word)) one = word.replace(/es$/, '')
  else if (/[^siu]s$/.test(word)) one = word.slice(0, -1)
  return tail ? head + one : one
}

/**
 * The operationId a route gets unless it names its own: the verb of its method (`list` for a GET of a plural
 * collection, `get`, `create`, `update`, `delete`; an action segment after a path parameter is the verb:
 * `POST /jobs/:code/run` → `runJob`) followed by the static path segments, singular before a parameter.
 */
export function operationIdOf(method: string, url: string): string {
  let path = url
  for (const prefix of PREFIXES) path = path.replace(prefix, '')
  const segments = path.split('/').filter((s) => s !== '')
  const words: string[] = []
  segments.forEach((segment, i) => {
    if (segment.startsWith(':')) return
    const name = segment.replace(/^\./, '').replace(/[-_.]([a-z])/g, (_m, c: string) => c.toUpperCase())
    words.push(segments[i + 1]?.startsWith(':') ? singular(name) : name)
  })
  const last = segments.at(-1) ?? ''
  const endsWithParam = last.startsWith(':')
  const pascal = (list: string[]) => list.map(upperFirst).join('')
  switch (method) {
    case 'GET':
      return (!endsWithParam && singular(last) !== last ? 'list' : 'get') + pascal(words)
    case 'PUT':
      return `update${pascal(words)}`
    case 'DELETE':
      return `delete${pascal(words)}`
    default: {
      // POST /things → createThing; POST /things/:code/act or /things/act → actThing.
      if (endsWithParam) return `post${pascal(words)}`
      const previous = segments.at(-2)
      if (words.length > 1 && (previous?.startsWith(':') || singular(words.at(-2)!) !== words.at(-2))) {
        const verb = words.pop()!
        const subject = words.map((w, i) => (i === words.length - 1 ? singular(w) : w))
        return verb + pascal(subject)
      }
      return `create${pascal(words.map((w, i) => (i === words.length - 1 ? singular(w) : w)))}`
    }
  }
}

const FAMILY_SCHEMAS: Record<Family, object> = {
  default: ErrorBody,
  offers: ErrorBody,
  query: QueryError,
  v1: ErrorV1,
  oauth: OAuthError,
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request: a field is missing or invalid (the body names it)',
  401: 'Unauthorized: no valid bearer token',
  403: 'Forbidden: the caller lacks the role',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'The query ran past its time limit',
  409: 'Conflict with the current state (duplicate code, record in use, wrong state)',
  413: 'The request body is over 1 MiB',
  415: 'The content type is not accepted',
  416: 'The requested range starts past the last record',
  422: 'The change is refused: the record’s state, or the amounts it has left, do not allow it',
  429: 'Too many requests: retry after Retry-After seconds',
  500: 'Unexpected failure: the body carries a request id',
  501: 'Announced, not yet available',
  503: 'The database is unavailable: retry after Retry-After seconds',
}

/**
 * The error statuses every route of a kind can give: 400 (a malformed path, query or body), 500; 503 when it reads
 * the database; 401 and 403 behind a token or session; 404 with path parameters; 409 on writes; 413 and 415 when it
 * takes a body.
 */
export function defaultErrorStatuses(method: string, url: string, policy: RoutePolicy | undefined): number[] {
  const statuses = [400, 500]
  const isPublic = policy !== undefined && 'public' in policy
  if (!url.startsWith('/health/') && url !== '/metrics') statuses.push(503)
  if (!isPublic) statuses.push(401, 403)
  if (url.includes('/:')) statuses.push(404)
  if (method === 'POST' || method === 'PUT') statuses.push(413, 415)
  if (!isPublic && ['POST', 'PUT', 'DELETE'].includes(method)) statuses.push(409)
  return statuses
}

/** Gives every documented route its operationId and its error responses (see the module comment). */
export function installOpenApiConventions(app: FastifyInstance): void {
  // `this` is the scope the route is registered in: its family (routeFamily) gives the error schema.
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    if (!route.schema || route.schema.hide) return
    const method = Array.isArray(route.method) ? route.method[0]! : route.method
    route.schema.operationId ??= operationIdOf(method, route.url)
    const policy = route.config?.policy
    if (policy && 'public' in policy) route.schema.security ??= []
    if (policy && 'session' in policy) route.schema.security ??= [{ portalSession: [] }]
    const family = FAMILY_SCHEMAS[familyOf(this)]
    // The response's description is not the schema's: the schema stays the same named component for every status.
    const response: Record<string, unknown> = { ...(route.schema.response as Record<string, unknown> | undefined) }
    const success = Object.keys(response).some((status) => status.startsWith('2'))
    // An operation served only to be refused (Opencell's writes) declares its 405 and no success; it changes nothing,
    // so it gives no 409.
    const refused = !success && '405' in response
    // A DELETE that declares no success answers 204 without content.
    if (method === 'DELETE' && !success && !refused) response[204] = NoContent
    for (const status of defaultErrorStatuses(method, route.url, policy))
      if (!(refused && status === 409)) response[status] ??= FAMILY_ERROR
    for (const [status, schema] of Object.entries(response)) {
      if (schema === FAMILY_ERROR)
        response[status] = { ...family, 'x-response-description': STATUS_TEXT[Number(status)] ?? 'Error' }
    }
    route.schema.response = response
  })
}

type Node = Record<string, unknown>

/** JSON with sorted keys, to compare schemas whatever the order their keywords were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
}

const isObject = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Moves every named schema (one with a `title`: a schema with an `$id` keeps it as its title) of the document into
 * `components.schemas` and points at it with `$ref`, innermost first. Two different schemas of one name are a
 * mistake in the routes: the document is refused, naming it.
 */
export function hoistNamedSchemas<T>(document: T): T {
  const root = document as Node
  const components = (root.components as Node | undefined) ?? {}
  const schemas = (components.schemas as Node | undefined) ?? {}
  const hoist = (node: unknown, inSchema: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => hoist(item, inSchema))
    if (!isObject(node)) return node
    const copy: Node = {}
    for (const [key, value] of Object.entries(node)) {
      // Below `schema` (media types) and in schema keywords, objects are schemas; `properties` maps names to schemas.
      copy[key] = hoist(value, inSchema || key === 'schema' || key === 'schemas')
    }
    const name = copy.title
    if (!inSchema || typeof name !== 'string' || !('type' in copy || 'anyOf' in copy || 'allOf' in copy)) return copy
    const known = schemas[name]
    if (known === undefined) schemas[name] = copy
    else if (canonical(known) !== canonical(copy))
      throw new Error(
        `Two different schemas are named ${name} in the OpenAPI document: ${canonical(known)} ${canonical(copy)}`,
      )
    return { $ref: `#/components/schemas/${name}` }
  }
  // The components Fastify's swagger already lifted (named schemas nested in others) first: hoist what they contain.
  for (const [name, schema] of Object.entries({ ...schemas })) {
    const { title: _title, ...rest } = schema as Node
    schemas[name] = { ...(hoist(rest, true) as Node), title: name }
  }
  const paths = hoist(root.paths, false)
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
  return { ...root, paths, components: { ...components, schemas: sorted } } as T
}

const SUCCESS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: running in the background',
  '204': 'No content',
  '206': 'Partial content: one range of the list',
}

/**
 * A documented HEAD (`config.swagger.exposeHeadRoute` on its GET) as HEAD answers: no body in any response, and an
 * operationId of its own (`getGenericRecord` → `headGenericRecord`; the swagger plugin writes `getGenericRecord-head`).
 */
function asHead(operation: Node): void {
  if (typeof operation.operationId === 'string')
    operation.operationId = operation.operationId.replace(/^[a-z]+([A-Z].*)-head$/, 'head$1')
  if (typeof operation.summary === 'string') operation.summary = `Status and headers only: ${operation.summary}`
  for (const response of Object.values(operation.responses as Record<string, Node>)) delete response.content
}

/** The document as served: named schemas hoisted, HEAD operations without bodies, a description for every success. */
export function finishDocument<T>(document: T): T {
  const hoisted = hoistNamedSchemas(document) as Node
  for (const methods of Object.values(hoisted.paths as Record<string, Record<string, Node>>)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (method === 'head') asHead(operation)
      for (const [status, response] of Object.entries(operation.responses as Record<string, Node>)) {
        if (response.description === 'Default Response') response.description = SUCCESS_TEXT[status] ?? 'OK'
      }
    }
  }
  return hoisted as T
}
