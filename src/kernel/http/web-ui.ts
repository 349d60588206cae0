import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import fastifyStatic from '@fastify/static'
import { PROJECT_ROOT } from '../project-root.ts'

/** Where bin/build-ui.js writes the web UI (never committed). */
export const UI_DIR = path.join(PROJECT_ROOT, 'dist', 'ui')
const HASHED_ASSET = `${path.sep}assets${path.sep}`

/**
 * The web UI under /ui: the files Vite built, sent pre-compressed (brotli or gzip, as the browser accepts). Assets
 * carry a content hash in their names and are cached for a year; index.html is revalidated on every load, so a new
 * build is picked up at once. Without a build (running from the sources, or the build failed) /ui answers 503 saying
 * how to build it.
 */
export async function registerWebUi(server: FastifyInstance, dir: string = UI_DIR): Promise<void> {
  const policy = { policy: { public: true as const } }
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    const missing = async (_request: unknown, reply: import('fastify').FastifyReply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web UI is not built: `npm start` builds it, or run `node bin/build-ui.js`.\n')
    server.get('/ui', { config: policy, schema: { hide: true } }, missing)
    server.get('/ui/*', { config: policy, schema: { hide: true } }, missing)
    return
  }
  // The page itself, at /ui and /ui/ (the router ignores the trailing slash, so the wildcard below never sees /ui/);
  // read on each load (400 bytes), so a rebuild while the server runs is served at once.
  const page = async (_request: unknown, reply: import('fastify').FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(await fs.promises.readFile(path.join(dir, 'index.html')))
  server.get('/ui', { config: policy, schema: { hide: true } }, page)
  await server.register(
    async (scope) => {
      await scope.register(fastifyStatic, {
        root: dir,
        prefix: '/',
        decorateReply: false,
        preCompressed: true,
        index: false,
        cacheControl: false,
        schemaHide: true,
        setHeaders: (reply, file) => {
          void reply.header(
            'cache-control',
            file.includes(HASHED_ASSET) ? 'public, max-age=31536000, immutable' : 'no-cache',
          )
        },
      })
      // The UI's own paths (/ui/orders/42): not files, so the page, whose router shows the screen or "not found".
      // A missing file (a name with an extension, an asset of an older build) stays a 404.
      scope.setNotFoundHandler(async (request, reply) =>
        /\.[a-z0-9]+$/i.test(request.url.split('?')[0]!) || request.method !== 'GET'
          ? reply.status(404).type('text/plain; charset=utf-8').send('Not found\n')
          : page(request, reply),
      )
    },
    { prefix: '/ui' },
  )
}
