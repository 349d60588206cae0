import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import { AppError } from '../../kernel/errors.ts'
import { errorResponses, NoContent } from '../../kernel/http/schemas.ts'
import { Group, GroupInput, PortalLoginInput, PortalSession, TokenResponse } from './iam.schemas.ts'
import { CSRF_HEADER, type PortalService, type SessionUser } from './portal.service.ts'

export { CSRF_HEADER } from './portal.service.ts'
export const SESSION_COOKIE = 'obol_session'

declare module 'fastify' {
  interface FastifyRequest {
    portalUser?: SessionUser
  }
}

/** The session's user, set by the `withSession` hook of every session route. */
function portalUserOf(request: FastifyRequest): SessionUser {
  if (!request.portalUser) throw new AppError('UNAUTHORIZED', 'Log in first: no portal session cookie')
  return request.portalUser
}

/**
 * People in the web UI log in with a password and get an HttpOnly, SameSite=Strict session cookie plus a CSRF
 * token that every mutating portal call must echo in the `x-csrf-token` header (the rules: portal.service.ts).
 */
export function registerPortalRoutes(
  app: FastifyInstance,
  deps: { portal: PortalService; sessionTtlSec: number; secureCookies: boolean },
): void {
  const { portal } = deps
  const session = { policy: { session: true as const } }
  const tags = ['Portal']

  // The session is checked before the body is validated: no session, 401, whatever the body.
  const withSession = (csrf: boolean) => async (request: FastifyRequest) => {
    const user = await portal.sessionUser(request.cookies[SESSION_COOKIE], {
      required: csrf,
      header: request.headers[CSRF_HEADER],
    })
    request.actor = { username: user.username }
    request.portalUser = user
  }

  void app.register(async (plain) => {
    await plain.register(cookie)
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>()

    scope.post(
      '/api/portal/login',
      {
        config: { policy: { public: true } },
        schema: {
          operationId: 'portalLogin',
          tags,
          summary: 'Log in with a username and password: sets the session cookie and returns the CSRF token',
          body: PortalLoginInput,
          response: { 200: PortalSession, ...errorResponses(401, 429) },
        },
      },
      async (request, reply) => {
        const { sessionId, ...answer } = await portal.login(request.body.username, request.body.password, request.ip)
        void reply.setCookie(SESSION_COOKIE, sessionId, {
          httpOnly: true,
          sameSite: 'strict',
          secure: deps.secureCookies,
          path: '/',
          maxAge: deps.sessionTtlSec,
        })
        return answer
      },
    )

    scope.post(
      '/api/portal/logout',
      {
        config: session,
        onRequest: withSession(true),
        schema: {
          operationId: 'portalLogout',
          tags,
          summary: 'End the portal session (needs the CSRF header)',
          response: { 204: NoContent },
        },
      },
      async (request, reply) => {
        await portal.logout(request.cookies[SESSION_COOKIE])
        void reply.clearCookie(SESSION_COOKIE, { path: '/' })
        return reply.status(204).send(null)
      },
    )

    scope.get(
      '/api/portal/token',
      {
        config: session,
        onRequest: withSession(false),
        schema: {
          operationId: 'getPortalToken',
          tags,
          summary: 'A short-lived bearer token for the logged-in user, to call the API',
          response: { 200: TokenResponse },
        },
      },
      async (request, reply) =>
        reply.header('cache-control', 'no-store').send(await portal.token(portalUserOf(request))),
    )

    scope.post(
      '/api/portal/groups',
      {
        config: session,
        onRequest: withSession(true),
        schema: {
          operationId: 'createPortalGroup',
          tags,
          summary: 'Create a custom group from the portal (session cookie, CSRF header, role api.groups.manage)',
          body: GroupInput,
          response: { 201: Group },
        },
      },
      async (request, reply) => reply.status(201).send(await portal.createGroup(portalUserOf(request), request.body)),
    )
  })
}
