import * as t from '../../db/schema/index.ts'
import { DELIVERY_STATUSES } from '../../db/schema/webhooks.ts'
import { defineEntity, manyToOne, oneToMany } from '../registry.ts'

const settings = 'api.settings'

/** The outbox's events, and the webhook endpoints, deliveries and attempts that carry them (secrets apart). */
export const eventEntities = [
  defineEntity({
    name: 'Event',
    package: 'event',
    table: t.events,
    resource: 'api.audit',
    business: true,
    sellerPath: 'seller',
    fields: {
      eventId: { readOnly: true },
      type: { readOnly: true },
      occurredAt: { readOnly: true },
      aggregateType: { readOnly: true },
      aggregateId: { readOnly: true },
      sequence: { readOnly: true },
      data: { readOnly: true },
    },
    relations: {
      seller: manyToOne('Seller', 'sellerId', { readOnly: true }),
      deliveries: oneToMany('WebhookDelivery', 'event'),
    },
  }),
  defineEntity({
    name: 'EventAggregate',
    package: 'event',
    table: t.eventAggregates,
    resource: 'api.audit',
    fields: { lastSequence: { readOnly: true } },
  }),
  defineEntity({
    name: 'WebhookEndpoint',
    package: 'event',
    table: t.webhookEndpoints,
    resource: settings,
    fields: { disabledReason: { readOnly: true }, failingSince: { readOnly: true } },
    relations: { deliveries: oneToMany('WebhookDelivery', 'endpoint') },
  }),
  defineEntity({
    name: 'WebhookSecret',
    package: 'security',
    table: t.webhookSecrets,
    resource: 'api.security',
    queryable: false,
    relations: { endpoint: manyToOne('WebhookEndpoint', 'endpointId') },
  }),
  defineEntity({
    name: 'WebhookDelivery',
    package: 'event',
    table: t.webhookDeliveries,
    resource: settings,
    fields: { status: { enum: DELIVERY_STATUSES, readOnly: true } },
    relations: {
      event: manyToOne('Event', 'eventId', { readOnly: true }),
      endpoint: manyToOne('WebhookEndpoint', 'endpointId', { readOnly: true }),
      attemptLog: oneToMany('WebhookAttempt', 'delivery'),
    },
  }),
  defineEntity({
    name: 'WebhookAttempt',
    package: 'event',
    table: t.webhookAttempts,
    resource: settings,
    relations: { delivery: manyToOne('WebhookDelivery', 'deliveryId', { readOnly: true }) },
  }),
]
