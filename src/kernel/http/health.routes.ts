import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Registry } from 'prom-client'
import { ping, type Database } from '../db/database.ts'
import { pendingMigrations } from '../db/migrate.ts'

const Live = Type.Object({ status: Type.Literal('UP') }, { additionalProperties: false })
const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal('UP'), Type.Literal('DOWN')]),
    database: Type.Union([Type.Literal('UP'), Type.Literal('DOWN'), Type.Literal('UNKNOWN')]),
    databaseKind: Type.Optional(Type.String({ description: '`pglite` or `postgres`, when UP' })),
    reason: Type.Optional(Type.String()),
    pendingMigrations: Type.Optional(Type.Array(Type.String())),
    replicas: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ description: 'host:port/database of the replica (no credentials)' }),
            state: Type.Union(
              ['STARTING', 'UP', 'LAGGING', 'BEHIND_SCHEMA', 'NOT_A_REPLICA', 'DOWN'].map((s) => Type.Literal(s)),
            ),
            lagMs: Type.Union([Type.Integer(), Type.Null()], { description: 'replay lag; null when unknown' }),
          },
          { additionalProperties: false },
        ),
        { description: 'Each read replica (DATABASE_READ_URL): readiness does not depend on them' },
      ),
    ),
  },
  { $id: 'Readiness', title: 'Readiness', additionalProperties: false },
)
const MetricsText = {
  description: 'Prometheus text exposition format',
  content: { 'text/plain': { schema: { type: 'string' } } },
}

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
    {
      config: open,
      schema: { operationId: 'getLiveness', tags: ['Health'], summary: 'The process is up', response: { 200: Live } },
    },
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
        summary: 'The database is reachable and migrated (replicas named, not required); 503 otherwise',
        response: { 200: Readiness, 503: { ...Readiness, 'x-response-description': 'Not ready: the body says why' } },
      },
    },
    async (_request, reply) => {
      if (isDraining()) return reply.status(503).send({ status: 'DOWN', database: 'UNKNOWN', reason: 'shutting down' })
      try {
        await ping(database.db)
        const pending = await pendingMigrations(database.db)
        if (pending.length > 0)
          return await reply.status(503).send({ status: 'DOWN', database: 'UP', pendingMigrations: pending })
        // Replicas only serve reads: one down or lagging is named here, never a reason to leave the balancer.
        const replicas = database.replicaStatus()
        return {
          status: 'UP',
          database: 'UP',
          databaseKind: database.kind,
          ...(replicas.length > 0 ? { replicas } : {}),
        }
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
        response: { 200: MetricsText },
      },
    },
    async (_request, reply) => {
      const text = await metrics.metrics()
      return reply.type(metrics.contentType).send(text)
    },
  )
}
