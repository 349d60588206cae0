import net from 'node:net'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ADMIN, startServer, stop, useCli } from '../support/cli.ts'

const { root } = useCli()

// Each test starts one to three real server processes (PGlite, migrations): a busy machine needs more than the
// default 30 s.
describe('obol CLI: the web UI, logs and signals', { timeout: 90_000 }, () => {
  it('redirects / to the web UI, which start built; logs JSON lines when stdout is not a terminal, probes and metrics not at info', async () => {
    const server = await startServer(path.join(root, 'newcomer'), { LOG_LEVEL: 'info' })
    const landing = await fetch(`${server.base}/`, { redirect: 'manual' })
    expect([landing.status, landing.headers.get('location')]).toEqual([302, '/ui/'])
    // `start` built the web UI when it was missing or stale (bin/build-ui.js) and serves it.
    const page = await fetch(`${server.base}/ui/`)
    expect([page.status, (await page.text()).includes('/ui/assets/')]).toEqual([200, true])
    for (const probe of ['/health/live', '/health/ready', '/metrics'])
      expect((await fetch(server.base + probe)).ok).toBe(true)
    expect((await fetch(`${server.base}/api/v1/sellers`)).status).toBe(401)
    // A client that cuts its body off: the request gets a line of its own at info, and is not taken for a database
    // outage (the body's ECONNRESET is the client's socket).
    const token = (await (
      await fetch(`${server.base}/auth/realms/obol/protocol/openid-connect/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: ADMIN.clientId,
          client_secret: ADMIN.clientSecret,
        }),
      })
    ).json()) as { access_token: string }
    const socket = net.connect(Number(new URL(server.base).port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write(
      `POST /api/v1/customers HTTP/1.1\r\nHost: obol\r\nAuthorization: Bearer ${token.access_token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"code":',
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    socket.destroy()
    for (let i = 0; i < 100 && !server.output().includes('request aborted'); i++)
      await new Promise((resolve) => setTimeout(resolve, 50))
    const exit = await stop(server)
    const lines = exit.stdout.split('\n').filter((line) => line.startsWith('{'))
    const logged = lines.map(
      (line) =>
        JSON.parse(line) as { msg: string; req?: { method: string; url: string }; res?: { statusCode: number } },
    )
    expect(logged.map((l) => l.msg)).toContain('stopped')
    const urls = logged.flatMap((l) => (l.req ? [l.req.url] : []))
    // One line a request, when it ends, with what came in and what went out.
    expect(logged.filter((l) => l.req?.url === '/api/v1/sellers')).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/api/v1/sellers' }) as unknown,
        res: { statusCode: 401 },
      }),
    ])
    expect(urls.filter((url) => url.startsWith('/health') || url.startsWith('/metrics'))).toEqual([])
    expect(logged.filter((l) => l.req?.url === '/api/v1/customers').map((l) => l.msg)).toEqual(['request aborted'])
    expect(logged.map((l) => l.msg)).not.toContain('database unavailable')
  }, 120_000)
  it('logs human-readable lines on a terminal', async () => {
    const server = await startServer(
      path.join(root, 'newcomer'),
      { LOG_LEVEL: 'info' },
      { terminal: true, detached: true },
    )
    expect((await fetch(`${server.base}/api/v1/sellers`)).status).toBe(401)
    // The terminal shows the line once the server has written it (stopping `script` first would cut it off).
    for (let i = 0; i < 100 && !/request completed/.test(server.output()); i++)
      await new Promise((resolve) => setTimeout(resolve, 100))
    process.kill(-server.pid, 'SIGTERM')
    const exit = await server.exited
    // One line a request: what came in and what went out, without the objects under it.
    expect(exit.stdout).toMatch(/INFO.*request completed: GET \/api\/v1\/sellers → 401 in \d+ ms/)
    expect(exit.stdout).not.toMatch(/req: \{/)
    expect(exit.stdout).not.toMatch(/^\{"level"/m)
  }, 120_000)
  it.each([
    ['directly', []],
    ['through the re-execution for a Node without type stripping', ['--no-experimental-strip-types']],
  ])(
    'stops the server it started on SIGTERM, run %s, leaving no process behind',
    async (_how, nodeArgs) => {
      const server = await startServer(path.join(root, 'newcomer'), {}, { nodeArgs, detached: true })
      expect((await fetch(`${server.base}/health/live`)).status).toBe(200)
      server.child.kill('SIGTERM')
      const exit = await server.exited
      expect([exit.code, exit.signal]).toEqual([0, null])
      await expect(fetch(`${server.base}/health/live`)).rejects.toThrow()
      // Nothing of its process group is left running (a re-executed child would be).
      expect(() => process.kill(-server.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }))
    },
    120_000,
  )
})
