import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { sql } from 'drizzle-orm'
import { rows, type Database } from '../db/database.ts'

/** Prometheus metrics of one app: a registry of its own, so tests and several apps never collide. */
export function installMetrics(app: FastifyInstance, database: Database): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'obol_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'obol_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  new Gauge({
    name: 'obol_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = database.poolStats()
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
  new Counter({
    name: 'obol_db_reads_total',
    help: 'Query layer reads (Query API, reports, Deep) by the server that answered them',
    labelNames: ['target'] as const,
    registers: [registry],
    collect() {
      const stats = database.readStats()
      this.reset()
      this.inc({ target: 'primary' }, stats.primary)
      this.inc({ target: 'replica' }, stats.replica)
    },
  })
  new Gauge({
    name: 'obol_db_replica_lag_seconds',
    help: 'How far each read replica is behind the primary (absent while unknown: down or not yet measured)',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect() {
      this.reset()
      for (const replica of database.replicaStatus())
        if (replica.lagMs !== null) this.set({ replica: replica.name }, replica.lagMs / 1000)
    },
  })
  new Gauge({
    name: 'obol_job_executions',
    help: 'Job executions by job type and status',
    labelNames: ['job_type', 'status'] as const,
    registers: [registry],
    async collect() {
      this.reset()
      try {
        const counts = await rows<{ job_type: string; status: string; n: string }>(
          database.db,
          sql`select i.job_type, e.status, count(*)::text as n from job_execution e join job_instance i on i.id = e.job_instance_id group by 1, 2`,
        )
        for (const c of counts) this.set({ job_type: c.job_type, status: c.status }, Number(c.n))
      } catch {
        // The database may be unreachable: /metrics still answers with what it has.
      }
    },
  })

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const labels = { method: request.method, route, status: String(reply.statusCode) }
    requests.inc(labels)
    latency.observe(labels, reply.elapsedTime / 1000)
  })
  return registry
}

const cacheSizes = new WeakMap<Registry, Map<string, () => number>>()

/**
 * Reports how many entries a bounded in-memory cache holds now, as `obol_cache_entries{cache="…"}`: every such cache
 * is bounded by a number of entries, and the gauge lets an operator watch it fill beside the process's resident
 * memory and heap (prom-client's default metrics, `process_resident_memory_bytes` and `nodejs_heap_size_*`).
 */
export function registerCacheGauge(registry: Registry, cache: string, size: () => number): void {
  let sizes = cacheSizes.get(registry)
  if (!sizes) {
    const registered = new Map<string, () => number>()
    new Gauge({
      name: 'obol_cache_entries',
      help: 'Entries held by each bounded in-memory cache',
      labelNames: ['cache'] as const,
      registers: [registry],
      collect() {
        for (const [name, sizeOf] of registered) this.set({ cache: name }, sizeOf())
      },
    })
    cacheSizes.set(registry, registered)
    sizes = registered
  }
  sizes.set(cache, size)
}
