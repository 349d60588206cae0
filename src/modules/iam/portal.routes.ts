import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import cookie from '@fastify/cookie'
import { sql } from 'drizzle-orm'
import { instantText } from '../../kernel/model/json.ts'
import { one, type Db } from '../../kernel/db/database.ts'
import { AppError } from '../../kernel/errors.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { IamService } from './iam.service.ts'
import { errorResponses, NoContent } from '../../kernel/http/schemas.ts'
import { Group, GroupInput, PortalLoginInput, PortalSession, TokenResponse } from './iam.schemas.ts'
import type { TokenService } from './tokens.ts'
import { grantsOf } from './tokens.ts'
import type { AuthThrottle } from './throttle.ts'
import { refusalMessage } from './auth.routes.ts'
import { DUMMY_HASH, randomSecret, sha256, verifySecret } from './secrets.ts'

export const SESSION_COOKIE = 'obol_session'
export const CSRF_HEADER = 'x-csrf-token'

interface SessionUser {
  userId: number
  username: string
}

declare module 'fastify' {
  interface FastifyRequest {
    portalUser?: SessionUser
  }
}

/**
 * People in the web UI log in with a password and get an HttpOnly, SameSite=Strict session cookie plus a CSRF
 * token that every mutating portal call must echo in the `x-csrf-token` header.
 */
export function registerPortalRoutes(
  app: FastifyInstance,
  deps: {
    db: Db
    iam: IamService
    tokens: TokenService
    throttle: AuthThrottle
    config: AuthConfig
    secureCookies: boolean
  },
): void {
  const session = { policy: { session: true as const } }
  const tags = ['Portal']

  async function currentSession(request: FastifyRequest, options: { csrf: boolean }): Promise<SessionUser> {
    const id = request.cookies[SESSION_COOKIE]
    if (!id) throw new AppError('UNAUTHORIZED', 'Log in first: no portal session cookie')
    const found = await one<{ user_id: string | number; username: string; csrf_hash: string }>(
      deps.db,
      sql`select s.user_id, u.username, s.csrf_hash from obol_secrets.portal_session s join app_user u on u.id = s.user_id
        where s.id_hash = ${sha256(id)} and s.expires_at > now() and u.enabled`,
    )
    if (!found) throw new AppError('UNAUTHORIZED', 'The portal session has expired or does not exist; log in again')
    if (options.csrf) {
      const header = request.headers[CSRF_HEADER]
      if (typeof header !== 'string' || sha256(header) !== found.csrf_hash) {
        throw new AppError('FORBIDDEN', `This call needs the ${CSRF_HEADER} header issued at login`)
      }
    }
    request.actor = { username: found.username }
    return { userId: Number(found.user_id), username: found.username }
  }

  // The session is checked before the body is validated: no session, 401, whatever the body.
  const withSession = (csrf: boolean) => async (request: FastifyRequest) => {
    request.portalUser = await currentSession(request, { csrf })
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
        const { username, password } = request.body
        const attempt = { kind: 'user' as const, identity: username, address: request.ip }
        const refusal = await deps.throttle.refusal(attempt)
        if (refusal) {
          throw new AppError('TOO_MANY_REQUESTS', refusalMessage(refusal, 'this user'), {
            headers: { 'retry-after': String(refusal.retryAfterSec) },
          })
        }
        const user = await deps.iam.passwordUser(username)
        const valid = await verifySecret(password, user?.hash ?? DUMMY_HASH)
        if (!user || !valid) {
          await deps.throttle.recordFailure(attempt)
          throw new AppError('UNAUTHORIZED', 'Unknown username or wrong password')
        }
        await deps.throttle.recordSuccess(attempt)
        const id = randomSecret()
        const csrf = randomSecret()
        const expires = await one<{ expires_at: string }>(
          deps.db,
          sql`insert into obol_secrets.portal_session (id_hash, user_id, csrf_hash, expires_at)
            values (${sha256(id)}, ${user.id}, ${sha256(csrf)}, now() + make_interval(secs => ${deps.config.portalSessionTtlSec}))
            returning ${instantText(sql`expires_at`)} as expires_at`,
        )
        void reply.setCookie(SESSION_COOKIE, id, {
          httpOnly: true,
          sameSite: 'strict',
          secure: deps.secureCookies,
          path: '/',
          maxAge: deps.config.portalSessionTtlSec,
        })
        return { username: user.username, csrfToken: csrf, expiresAt: expires!.expires_at }
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
        await deps.db.execute(
          sql`delete from obol_secrets.portal_session where id_hash = ${sha256(request.cookies[SESSION_COOKIE] ?? '')}`,
        )
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
      async (request, reply) => {
        const user = request.portalUser!
        const token = await deps.tokens.issue(
          { userId: user.userId, username: user.username, clientId: undefined },
          Math.min(300, deps.config.tokenTtlSec),
        )
        return reply.header('cache-control', 'no-store').send(token)
      },
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
      async (request, reply) => {
        const user = request.portalUser!
        const { roles } = await grantsOf(deps.db, user.userId)
        if (!roles.includes('api.groups.manage'))
          throw new AppError('FORBIDDEN', 'This operation needs the role api.groups.manage')
        return reply.status(201).send(await deps.iam.createGroup(request.body, user.username))
      },
    )
  })
}
