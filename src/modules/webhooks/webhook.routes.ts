import type { Caller } from '../../kernel/caller.ts'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../../kernel/http/principal.ts'
import { errorResponses, NoContent } from '../../kernel/http/schemas.ts'
import type { WebhookService } from './webhook.service.ts'
import {
  deliveryList,
  deliveryQuery,
  deliveryView,
  endpointCreateBody,
  endpointCreated,
  endpointList,
  endpointParams,
  endpointUpdateBody,
  endpointView,
  eventList,
  eventParams,
  eventQuery,
  eventTypeList,
  eventView,
  replayBody,
  replayView,
  secretView,
  testView,
} from './webhook.schemas.ts'

const VIEW = { policy: { role: 'api.settings.view' } }
const MANAGE = { policy: { role: 'api.settings.manage' } }

/** Webhook endpoints, their deliveries, and the events (invoicing-events.md §4). Thin. */
export function registerWebhookRoutes(server: FastifyInstance, deps: { webhooks: WebhookService }) {
  const { webhooks } = deps
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const caller = (request: FastifyRequest): Caller => principalOf(request)
  const tags = ['Webhooks']
  const base = '/api/v1/webhookEndpoints'

  app.get(
    `${base}/eventTypes`,
    {
      config: VIEW,
      schema: { tags, summary: 'The event types an endpoint may subscribe to', response: { 200: eventTypeList } },
    },
    async () => webhooks.eventTypes(),
  )
  app.post(
    base,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Create an endpoint: an https URL and its event types; the answer carries its secret, this once',
        body: endpointCreateBody,
        response: { 201: endpointCreated, ...errorResponses(409) },
      },
    },
    async (request, reply) => reply.status(201).send(await webhooks.create(request.body, caller(request))),
  )
  app.get(
    base,
    { config: VIEW, schema: { tags, summary: 'List the webhook endpoints', response: { 200: endpointList } } },
    async (request) => webhooks.list(caller(request)),
  )
  app.get(
    `${base}/:id`,
    {
      config: VIEW,
      schema: {
        tags,
        summary: 'Get an endpoint',
        params: endpointParams,
        response: { 200: endpointView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.get(request.params.id, caller(request)),
  )
  app.put(
    `${base}/:id`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Change an endpoint (partial: the fields sent change; active true enables it again)',
        params: endpointParams,
        body: endpointUpdateBody,
        response: { 200: endpointView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.update(request.params.id, request.body, caller(request)),
  )
  app.delete(
    `${base}/:id`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Delete an endpoint, its secrets and deliveries',
        params: endpointParams,
        response: { 204: NoContent, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      await webhooks.delete(request.params.id, caller(request))
      return reply.status(204).send(null)
    },
  )
  app.post(
    `${base}/:id/rotateSecret`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'A new secret (shown once); the previous one keeps signing beside it for 24 hours',
        params: endpointParams,
        response: { 200: secretView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.rotateSecret(request.params.id, caller(request)),
  )
  app.post(
    `${base}/:id/test`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Send a webhook.test event to this endpoint alone',
        params: endpointParams,
        response: { 200: testView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.test(request.params.id, caller(request)),
  )
  app.post(
    `${base}/:id/replay`,
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Deliver again to this endpoint the events of a time range (and types), with the same event ids',
        params: endpointParams,
        body: replayBody,
        response: { 200: replayView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.replay(request.params.id, request.body, caller(request)),
  )
  app.get(
    `${base}/:id/deliveries`,
    {
      config: VIEW,
      schema: {
        tags,
        summary: 'An endpoint’s deliveries, newest first, with their attempts',
        params: endpointParams,
        querystring: deliveryQuery,
        response: { 200: deliveryList, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.deliveries(request.params.id, request.query, caller(request)),
  )
  app.post(
    '/api/v1/webhookDeliveries/:id/retry',
    {
      config: MANAGE,
      schema: {
        tags,
        summary: 'Attempt a delivery now, whatever its schedule (a FAILED one again)',
        params: endpointParams,
        response: { 200: deliveryView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.retry(request.params.id, caller(request)),
  )
  app.get(
    '/api/v1/events',
    {
      config: { policy: { role: 'api.audit.view' } },
      schema: {
        tags: ['Events'],
        summary: 'Events, newest first (kept 30 days); filters type, since, until, aggregateType, aggregateId',
        querystring: eventQuery,
        response: { 200: eventList },
      },
    },
    async (request) => webhooks.events(request.query, caller(request)),
  )
  app.get(
    '/api/v1/events/:id',
    {
      config: { policy: { role: 'api.audit.view' } },
      schema: {
        tags: ['Events'],
        summary: 'An event by its id (evt_…)',
        params: eventParams,
        response: { 200: eventView, ...errorResponses(404) },
      },
    },
    async (request) => webhooks.event(request.params.id, caller(request)),
  )
}
