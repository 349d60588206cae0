import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/database.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST (or other unsafe method) that only reads, as the Query API's: no write position is recorded. */
    reads?: true
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Read-your-writes on replicas (docs/decisions.md, "Read replicas"): before a caller's write is answered, the primary's WAL
 * position is recorded for them, in the primary, so their next reads on any instance go to a replica only once it has
 * replayed past it. Only with replicas configured; a failure to record is logged, never the request's failure (the
 * caller's reads then may go to a replica within the lag bound).
 */
export function installReadPositions(app: FastifyInstance, database: Database): void {
  if (!database.recordsWrites) return
  app.addHook('onSend', async (request, _reply, payload) => {
    const principal = request.principal
    if (!principal || SAFE_METHODS.has(request.method) || request.routeOptions.config.reads) return payload
    try {
      await database.recordWrite(principal.subject)
    } catch (error) {
      request.log.warn({ err: error }, 'could not record the caller’s write position for read-your-writes')
    }
    return payload
  })
}
