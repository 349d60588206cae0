import type { FastifyServerOptions } from 'fastify'

/** Pino options shared by the server and the CLI: request ids on every line, no secrets. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  if (level === 'silent') return false
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-csrf-token"]',
        '*.password',
        '*.client_secret',
      ],
      censor: '[redacted]',
    },
  }
}
