import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { ping, type Database } from '../db/database.ts'
import { pendingMigrations } from '../db/migrate.ts'

/** Liveness, readiness (database reachable and migrated) and Prometheus metrics. No token needed. */
export function registerHealthRoutes(
  app: FastifyInstance,
  database: Database,
  metrics: Registry,
  isDraining: () => boolean,
): void {
  const open = { policy: { public: true as const } }
  app.get(
    '/health/live',
    { config: open, schema: { operationId: 'getLiveness', tags: ['Health'], summary: 'The process is up' } },
    async () => ({
      status: 'UP',
    }),
  )
  app.get(
    '/health/ready',
    {
      config: open,
      schema: {
        operationId: 'getReadiness',
        tags: ['Health'],
        summary: 'The database is reachable and migrated; 503 otherwise',
      },
    },
    async (_request, reply) => {
      if (isDraining()) return reply.status(503).send({ status: 'DOWN', database: 'UNKNOWN', reason: 'shutting down' })
      try {
        await ping(database.db)
        const pending = await pendingMigrations(database.db)
        if (pending.length > 0)
          return await reply.status(503).send({ status: 'DOWN', database: 'UP', pendingMigrations: pending })
        return { status: 'UP', database: 'UP', databaseKind: database.kind }
      } catch {
        return reply.status(503).send({ status: 'DOWN', database: 'DOWN' })
      }
    },
  )
  app.get(
    '/metrics',
    {
      config: open,
      schema: {
        operationId: 'getMetrics',
        tags: ['Health'],
        summary: 'Prometheus metrics: requests, latencies, database pool, jobs',
      },
    },
    async (_request, reply) => {
      const text = await metrics.metrics()
      return reply.type(metrics.contentType).send(text)
    },
  )
}
