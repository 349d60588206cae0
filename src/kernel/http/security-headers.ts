import type { FastifyInstance } from 'fastify'
import helmet from '@fastify/helmet'

/**
 * Security headers on every response (helmet): `X-Content-Type-Options: nosniff`, no framing (`X-Frame-Options: DENY`
 * and `frame-ancestors 'none'`), `Referrer-Policy: no-referrer`, and a Content-Security-Policy under which the only
 * HTML Obol serves, Swagger UI at /api/docs, works: its scripts, styles and images are files served by Obol itself
 * ('self'); it sets inline styles (hence 'unsafe-inline' for styles only, which runs no code) and data: images. No
 * inline or foreign script runs. HSTS and upgrade-insecure-requests only when the public URL is https: on plain http
 * they would send browsers to an https address that does not answer.
 */
export async function installSecurityHeaders(app: FastifyInstance, options: { https: boolean }): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        // The web UI shows an invoice's PDF in a frame from a blob: URL its own script made of the fetched file.
        frameSrc: ["'self'", 'blob:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(options.https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    hsts: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  })
}
