import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { Database } from './kernel/db/database.ts'
import type { Clock } from './kernel/clock.ts'
import { installErrorHandling } from './kernel/http/error-handler.ts'
import { validatorCompiler } from './kernel/http/validation.ts'
import { installMetrics } from './kernel/http/metrics.ts'
import { installRoutePolicy, type PolicyEntry } from './kernel/http/route-policy.ts'
import { registerHealthRoutes } from './kernel/http/health.routes.ts'
import { actorOf } from './kernel/http/actor.ts'
import { loggerOptions } from './kernel/logger.ts'
import type { JobRuntime } from './kernel/jobs/job-runtime.ts'
import { registerJobRoutes } from './kernel/jobs/job.routes.ts'
import { createAccountsModule } from './modules/accounts/index.ts'

export interface AppDeps {
  database: Database
  clock: Clock
  jobs: JobRuntime
  logLevel?: string
  /** Base URL shown in the OpenAPI document. */
  publicUrl?: string
}

export interface App {
  server: FastifyInstance
  policies: PolicyEntry[]
  /** Stops answering readiness (load balancers drain) while in-flight requests finish. */
  drain(): void
}

const ONE_MIB = 1024 * 1024

/** Builds the HTTP application without listening: `main` listens, tests inject. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const server = Fastify({
    logger: loggerOptions(deps.logLevel ?? 'silent'),
    bodyLimit: ONE_MIB,
    genReqId: () => randomUUID(),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
  })
  server.setValidatorCompiler(validatorCompiler())
  let draining = false
  server.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id)
  })
  installErrorHandling(server)
  const policies = installRoutePolicy(server)
  const metrics = installMetrics(server, deps.database)

  await server.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Obol API',
        version: '0.1.0',
        description: 'Obol, an open billing and monetization platform. Each operation names the role it needs.',
      },
      ...(deps.publicUrl ? { servers: [{ url: deps.publicUrl }] } : {}),
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
  })
  await server.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' } })
  server.get('/api/openapi.json', { config: { policy: { public: true } }, schema: { hide: true } }, async () =>
    server.swagger(),
  )

  registerHealthRoutes(server, deps.database, metrics, () => draining)
  const accounts = createAccountsModule({ db: deps.database.db, actorOf })
  accounts.routes(server)
  registerJobRoutes(server, deps.database.db, deps.jobs, actorOf)

  await server.ready()
  return {
    server,
    policies,
    drain: () => {
      draining = true
    },
  }
}
