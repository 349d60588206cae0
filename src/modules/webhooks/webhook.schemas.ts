import { Type, type Static } from 'typebox'
import { PageQuery } from '../../kernel/http/pagination.ts'
import { DELIVERY_STATUSES } from '../../kernel/db/schema/webhooks.ts'

type JsonSchema = Record<string, unknown>
const instant: JsonSchema = { type: ['string', 'null'], description: 'ISO-8601 instant, UTC' }
const nullableString: JsonSchema = { type: ['string', 'null'] }

const eventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description: 'event types from the catalogue (GET /api/v1/webhookEndpoints/eventTypes), or ["*"] for every type',
})

export const endpointCreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'an https:// URL' }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    eventTypes,
  },
  { additionalProperties: false },
)
export type EndpointCreateBody = Static<typeof endpointCreateBody>

export const endpointUpdateBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    eventTypes: Type.Optional(eventTypes),
    active: Type.Optional(Type.Boolean({ description: 'true enables a disabled endpoint again' })),
  },
  { additionalProperties: false },
)

export const endpointParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) })

const endpointProperties: Record<string, JsonSchema> = {
  id: { type: 'integer' },
  url: { type: 'string' },
  description: nullableString,
  eventTypes: { type: 'array', items: { type: 'string' } },
  active: { type: 'boolean', description: 'false once disabled (a 410, or 5 days of failures), or by a person' },
  disabledReason: nullableString,
  createdAt: instant,
}
const endpointRequired = Object.keys(endpointProperties)

export const endpointView = Type.Unsafe<unknown>({
  $id: 'WebhookEndpoint',
  title: 'WebhookEndpoint',
  type: 'object',
  additionalProperties: false,
  required: endpointRequired,
  properties: endpointProperties,
})

export const endpointCreated = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: [...endpointRequired, 'secret'],
  properties: {
    ...endpointProperties,
    secret: { type: 'string', description: 'whsec_…: shown this once; it signs every delivery' },
  },
})

export const endpointList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'data'],
  properties: { total: { type: 'integer' }, data: { type: 'array', items: endpointView } },
})

export const eventTypeList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['eventTypes'],
  properties: { eventTypes: { type: 'array', items: { type: 'string' } } },
})

export const secretView = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['secret'],
  properties: { secret: { type: 'string', description: 'the new secret; the previous one signs beside it 24 hours' } },
})

export const testView = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['event'],
  properties: { event: { type: 'string', description: 'the id of the webhook.test event sent' } },
})

export const replayBody = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'events that occurred at or after this instant' }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'and before this one (default: now)' })),
    eventTypes: Type.Optional(eventTypes),
  },
  { additionalProperties: false },
)

export const replayView = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['deliveries'],
  properties: { deliveries: { type: 'integer', description: 'deliveries created (the same event ids)' } },
})

export const deliveryView = Type.Unsafe<unknown>({
  $id: 'WebhookDelivery',
  title: 'WebhookDelivery',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'event', 'eventType', 'endpoint', 'status', 'attempts', 'attemptLog'],
  properties: {
    id: { type: 'integer' },
    event: { type: 'string' },
    eventType: { type: 'string' },
    endpoint: { type: 'integer' },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: { type: 'integer' },
    nextAttemptAt: instant,
    lastStatusCode: { type: ['integer', 'null'] },
    lastError: nullableString,
    created: instant,
    attemptLog: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['at', 'durationMs', 'statusCode', 'error', 'response'],
        properties: {
          at: instant,
          durationMs: { type: 'integer' },
          statusCode: { type: ['integer', 'null'] },
          error: nullableString,
          response: { type: ['string', 'null'], description: 'the first 2 KB of the answer' },
        },
      },
    },
  },
})

export const deliveryQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))) },
  { additionalProperties: false },
)

export const deliveryList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'offset', 'limit', 'data'],
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: { type: 'array', items: deliveryView },
  },
})

export const eventView = Type.Unsafe<unknown>({
  $id: 'Event',
  title: 'Event',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'occurredAt', 'data', 'aggregate'],
  properties: {
    id: { type: 'string', description: 'evt_…, the webhook-id of its deliveries' },
    type: { type: 'string' },
    occurredAt: { type: 'string' },
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['object'],
      properties: {
        object: { description: 'the record as its v1 resource shows it after the change' },
        previous: { type: 'object', additionalProperties: true, description: 'former values of the changed fields' },
      },
    },
    aggregate: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'id', 'sequence'],
      properties: { type: { type: 'string' }, id: { type: 'string' }, sequence: { type: 'integer' } },
    },
  },
})

export const eventQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.String({ maxLength: 100 })),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    until: Type.Optional(Type.String({ format: 'date-time' })),
    aggregateType: Type.Optional(Type.String({ maxLength: 100 })),
    aggregateId: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
)

export const eventList = Type.Unsafe<unknown>({
  type: 'object',
  additionalProperties: false,
  required: ['total', 'offset', 'limit', 'data'],
  properties: {
    total: { type: 'integer' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    data: { type: 'array', items: eventView },
  },
})

export const eventParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) })
