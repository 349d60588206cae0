import {
  LogController,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import pino from 'pino'
import pretty from 'pino-pretty'

const REDACT = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["x-csrf-token"]',
    '*.password',
    '*.client_secret',
  ],
  censor: '[redacted]',
}

/**
 * Human-readable lines for a person at a terminal, JSON lines (one object each, for log collectors) otherwise.
 * Written synchronously, so the last lines before an exit are not lost.
 */
function prettyStream(): pino.DestinationStream {
  return pretty({
    colorize: true,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // A request's line on one line: "request completed: GET /api/v1/sellers → 401 in 2 ms" (JSON lines keep all).
    // (The request id too: JSON lines carry it for correlating; a person at a terminal reads the line itself.)
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: (log, messageKey) => {
      const raw = log[messageKey]
      const message = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : ''
      const req = log.req as { method?: string; url?: string } | undefined
      if (!req?.method) return message
      const res = log.res as { statusCode?: number } | undefined
      const time = typeof log.responseTime === 'number' ? ` in ${Math.round(log.responseTime)} ms` : ''
      return `${message}: ${req.method} ${req.url ?? ''}${res?.statusCode ? ` → ${res.statusCode}` : ''}${time}`
    },
  })
}

/** The process logger (start-up, shutdown, jobs): pretty on a terminal when `pretty`, JSON otherwise. */
export function createLogger(level: string, options: { pretty: boolean }): pino.Logger {
  return options.pretty ? pino({ level, redact: REDACT }, prettyStream()) : pino({ level, redact: REDACT })
}

/** Health probes and metrics scrapes come every few seconds from machines: their request lines are debug, not info. */
function isProbe(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? ''
  return url.startsWith('/health/') || url === '/metrics'
}

/**
 * One line a request at info, when it ends: its method, URL, client, status and time together (Fastify's default
 * is two, one as it comes in and one as it ends, joined only by the request id). The incoming line stays, at debug.
 * Health probes and metrics scrapes that succeed end at debug too (they come every few seconds from machines).
 */
class RequestLines extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return
    const line = { req: request, res: reply, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else if (isProbe(request) && reply.statusCode < 400) reply.log.debug(line, 'request completed')
    else reply.log.info(line, 'request completed')
  }
}

/** Fastify's logger: one line a request, request ids, no secrets, probes at debug; pretty on a terminal when `pretty`. */
export function loggerOptions(
  level: string,
  options: { pretty?: boolean } = {},
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (level === 'silent') return { logger: false }
  return {
    logger: { level, redact: REDACT, ...(options.pretty ? { stream: prettyStream() } : {}) },
    logController: new RequestLines(),
  }
}

/**
 * A request whose client cuts its body off never ends with a "request completed" line, and its arrival is at debug:
 * this line says at info what it was and how long it had run. Fastify's `onRequestAbort` fires only while the body
 * is being received; a client that leaves while it waits for the answer is not seen here. Nothing is registered when
 * info is off (no start time kept per request for nothing).
 */
export function logAbortedRequests(server: FastifyInstance): void {
  const log = server.log as { isLevelEnabled?: (level: string) => boolean }
  if (typeof log.isLevelEnabled !== 'function' || !log.isLevelEnabled('info')) return
  const started = new WeakMap<FastifyRequest, number>()
  server.addHook('onRequest', async (request) => {
    started.set(request, performance.now())
  })
  server.addHook('onRequestAbort', async (request) => {
    const since = started.get(request)
    const responseTime = since === undefined ? undefined : performance.now() - since
    request.log.info({ req: request, responseTime }, 'request aborted')
  })
}
