import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
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
  return pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
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

class QuietProbes extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (isProbe(request)) request.log.debug({ req: request }, 'incoming request')
    else super.incomingRequest(request, reply)
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (isProbe(request) && !error)
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed')
    else super.requestCompleted(error, request, reply)
  }
}

/** Fastify's logger: request ids on every line, no secrets, probes at debug; pretty on a terminal when `pretty`. */
export function loggerOptions(
  level: string,
  options: { pretty?: boolean } = {},
): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (level === 'silent') return { logger: false }
  return {
    logger: { level, redact: REDACT, ...(options.pretty ? { stream: prettyStream() } : {}) },
    logController: new QuietProbes(),
  }
}
