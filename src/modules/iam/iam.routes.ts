import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../../kernel/http/principal.ts'
import type { IamService } from './iam.service.ts'
import { registerClientRoutes } from './iam-clients.routes.ts'
import { registerRoleAndGroupRoutes } from './iam-groups.routes.ts'
import { registerUserRoutes } from './iam-users.routes.ts'
import { Session } from './iam.schemas.ts'

/** Roles, groups, users, clients and the caller's session. */
export function registerIamRoutes(
  server: FastifyInstance,
  iam: IamService,
  realm: string,
  tenantDay: () => Promise<{ today: string; timeZone: string }>,
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  registerRoleAndGroupRoutes(server, iam)
  registerUserRoutes(server, iam)
  registerClientRoutes(server, iam)

  app.get(
    '/api/v1/auth/session',
    {
      config: { policy: { authenticated: true } },
      schema: {
        operationId: 'getSession',
        tags: ['Authentication'],
        summary: "Who the bearer token says the caller is, and the tenant's today (its day in the tenant time zone)",
        response: { 200: Session },
      },
    },
    async (request) => {
      const principal = principalOf(request)
      return {
        subject: principal.subject,
        username: principal.username,
        clientId: principal.clientId ?? null,
        realm: principal.realm ?? realm,
        groups: [...principal.groups],
        roles: [...principal.roles].sort(),
        expiresAt: request.tokenExpiresAt?.toISOString() ?? null,
        tenant: await tenantDay(),
      }
    },
  )
}
