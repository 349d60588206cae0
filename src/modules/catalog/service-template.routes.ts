import type { FastifyInstance } from 'fastify'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import type { ListQuery } from '../../kernel/resources/resource.service.ts'
import { codeList, description, listOf, listQuery, newCode, openObject, params } from './catalog.schemas.ts'
import type { ServiceTemplateInput, ServiceTemplateService } from './service-template.service.ts'

const fields = {
  description,
  name: { type: ['string', 'null'], maxLength: 255 },
  charges: { ...codeList, description: 'codes of the service’s charges (replaces the set)' },
}
const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: { code: newCode, ...fields },
}
const updateBody = { type: 'object', additionalProperties: false, properties: fields }

/** Service templates of the legacy model (catalog.services.*). */
export function registerServiceTemplateRoutes(
  app: FastifyInstance,
  services: ServiceTemplateService,
  actorOf: ActorOf,
): void {
  const tags = ['ServiceTemplate']
  const view = { policy: { role: 'catalog.services.view' } }
  const manage = { policy: { role: 'catalog.services.manage' } }
  const base = '/api/v1/serviceTemplates'
  const codeOf = (request: { params: unknown }) => (request.params as { code: string }).code

  app.post(
    base,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a service template with its charges',
        body: createBody,
        response: { 201: openObject },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await services.create(request.body as ServiceTemplateInput & { code: string }, actorOf(request).username),
        ),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List service templates, paginated',
        querystring: listQuery,
        response: { 200: listOf(openObject) },
      },
    },
    async (request) => services.list(request.query as ListQuery),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get a service template', params: params('code'), response: { 200: openObject } },
    },
    async (request) => services.get(codeOf(request)),
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a service template (partial; charges replaces the set)',
        params: params('code'),
        body: updateBody,
        response: { 200: openObject },
      },
    },
    async (request) =>
      services.update(codeOf(request), request.body as ServiceTemplateInput, actorOf(request).username),
  )
  app.delete(
    `${base}/:code`,
    { config: manage, schema: { tags, summary: 'Delete a service template no offer uses', params: params('code') } },
    async (request, reply) => {
      await services.delete(codeOf(request))
      return reply.status(204).send()
    },
  )
}
