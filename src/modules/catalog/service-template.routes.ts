import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { CodeParams, ListQuery, NoContent } from '../../kernel/http/schemas.ts'
import type { ActorOf } from '../../kernel/resources/resource.routes.ts'
import { catalogRecord, CatalogPage, CodeList, Description, NewCode, NullableText } from './catalog.schemas.ts'
import type { ServiceTemplateService } from './service-template.service.ts'

const fields = {
  description: Type.Optional(Description),
  name: Type.Optional(NullableText(255)),
  charges: Type.Optional(CodeList('codes of the service’s charges (replaces the set)')),
}
const ServiceTemplateInput = Type.Object(
  { code: NewCode, ...fields },
  { $id: 'ServiceTemplateInput', title: 'ServiceTemplateInput', additionalProperties: false },
)
const ServiceTemplateUpdate = Type.Object(fields, {
  $id: 'ServiceTemplateUpdate',
  title: 'ServiceTemplateUpdate',
  additionalProperties: false,
})
const ServiceTemplate = catalogRecord('ServiceTemplate', 'ServiceTemplate', {
  charges: Type.Array(Type.String(), { description: 'codes of the service’s charges' }),
})
const ServiceTemplatePage = CatalogPage(ServiceTemplate, 'ServiceTemplatePage')

/** Service templates of the legacy model (catalog.services.*). */
export function registerServiceTemplateRoutes(
  server: FastifyInstance,
  services: ServiceTemplateService,
  actorOf: ActorOf,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['ServiceTemplate']
  const view = { policy: { role: 'catalog.services.view' } }
  const manage = { policy: { role: 'catalog.services.manage' } }
  const base = '/api/v1/serviceTemplates'

  app.post(
    base,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Create a service template with its charges',
        body: ServiceTemplateInput,
        response: { 201: ServiceTemplate },
      },
    },
    async (request, reply) => reply.status(201).send(await services.create(request.body, actorOf(request).username)),
  )
  app.get(
    base,
    {
      config: view,
      schema: {
        tags,
        summary: 'List service templates, paginated',
        querystring: ListQuery,
        response: { 200: ServiceTemplatePage },
      },
    },
    async (request) => services.list(request.query),
  )
  app.get(
    `${base}/:code`,
    {
      config: view,
      schema: { tags, summary: 'Get a service template', params: CodeParams, response: { 200: ServiceTemplate } },
    },
    async (request) => services.get(request.params.code),
  )
  app.put(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Update a service template (partial; charges replaces the set)',
        params: CodeParams,
        body: ServiceTemplateUpdate,
        response: { 200: ServiceTemplate },
      },
    },
    async (request) => services.update(request.params.code, request.body, actorOf(request).username),
  )
  app.delete(
    `${base}/:code`,
    {
      config: manage,
      schema: {
        tags,
        summary: 'Delete a service template no offer uses',
        params: CodeParams,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await services.delete(request.params.code)
      return reply.status(204).send(null)
    },
  )
}
