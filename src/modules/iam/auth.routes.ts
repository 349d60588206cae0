import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import formbody from '@fastify/formbody'
import type { AuthConfig } from '../../kernel/config.ts'
import type { SigningKeys } from './signing-keys.ts'
import type { TokenService } from './tokens.ts'
import { refusalMessage, type AuthThrottle } from './throttle.ts'
import { DUMMY_HASH, verifySecret } from './secrets.ts'
import { isStorableText } from '../../kernel/http/text-guard.ts'
import { errorResponses } from '../../kernel/http/schemas.ts'
import { JsonWebKeySet, OpenidConfiguration, RealmParams, TokenRequest, TokenResponse } from './iam.schemas.ts'

function oauthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return reply
    .status(status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...headers })
    .send({ error, error_description: description })
}

function clientCredentials(
  request: FastifyRequest,
  body: Pick<Static<typeof TokenRequest>, 'client_id' | 'client_secret'>,
) {
  const header = request.headers.authorization
  const basic = header && /^Basic\s+(\S+)$/i.exec(header)
  const inBody = typeof body.client_id === 'string' || typeof body.client_secret === 'string'
  if (basic) {
    if (inBody && typeof body.client_secret === 'string')
      return { error: 'the client authenticated with two methods' as const }
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) return { error: 'the Basic credentials are malformed' as const }
    let clientId: string
    let secret: string
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon))
      secret = decodeURIComponent(decoded.slice(colon + 1))
    } catch {
      return { error: 'the Basic credentials are not URL-encoded UTF-8' as const }
    }
    // Form fields are checked at the edge for every route; the Authorization header is this route's own.
    if (!isStorableText(clientId) || !isStorableText(secret))
      return { error: 'the Basic credentials contain NUL or an unpaired UTF-16 surrogate' as const }
    return { method: 'basic' as const, clientId, secret }
  }
  if (typeof body.client_id !== 'string' || body.client_id === '') return { error: 'client_id is required' as const }
  if (typeof body.client_secret !== 'string') return { error: 'client_secret is required' as const }
  return { method: 'post' as const, clientId: body.client_id, secret: body.client_secret }
}

/** The built-in OpenID issuer: client credentials token endpoint, JWKS and discovery. */
export function registerAuthRoutes(
  server: FastifyInstance,
  deps: { config: AuthConfig; tokens: TokenService; keys: SigningKeys; throttle: AuthThrottle },
): void {
  const app = server.withTypeProvider<TypeBoxTypeProvider>()
  const realmPath = '/auth/realms/:realm'
  const open = { policy: { public: true as const } }
  const tags = ['Authentication']
  const checkRealm = ({ realm }: Static<typeof RealmParams>, reply: FastifyReply): boolean => {
    if (deps.tokens.realms.includes(realm)) return true
    void oauthError(reply, 404, 'invalid_request', `Realm ${realm} does not exist`)
    return false
  }

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>()
    await plain.register(formbody, { bodyLimit: 16 * 1024 })
    scope.post(
      `${realmPath}/protocol/openid-connect/token`,
      {
        config: open,
        schema: {
          operationId: 'requestToken',
          tags,
          summary: 'OAuth 2.0 token endpoint: client_credentials grant (client_secret_post or client_secret_basic)',
          consumes: ['application/x-www-form-urlencoded'],
          params: RealmParams,
          body: TokenRequest,
          response: { 200: TokenResponse, ...errorResponses(401, 429) },
        },
      },
      async (request, reply) => {
        if (!checkRealm(request.params, reply)) return reply
        const contentType = request.headers['content-type'] ?? ''
        if (!contentType.startsWith('application/x-www-form-urlencoded')) {
          return oauthError(
            reply,
            400,
            'invalid_request',
            'The token request must be application/x-www-form-urlencoded',
          )
        }
        const body = request.body
        if (typeof body.grant_type !== 'string' || body.grant_type === '') {
          return oauthError(reply, 400, 'invalid_request', 'grant_type is required')
        }
        if (body.grant_type !== 'client_credentials') {
          return oauthError(
            reply,
            400,
            'unsupported_grant_type',
            `grant_type ${body.grant_type} is not supported; use client_credentials`,
          )
        }
        const credentials = clientCredentials(request, body)
        if ('error' in credentials)
          return oauthError(reply, 400, 'invalid_request', credentials.error ?? 'invalid request')
        const attempt = { kind: 'client' as const, identity: credentials.clientId, address: request.ip }
        const refusal = await deps.throttle.refusal(attempt)
        if (refusal) {
          return oauthError(reply, 429, 'too_many_requests', refusalMessage(refusal, 'this client'), {
            'retry-after': String(refusal.retryAfterSec),
          })
        }
        const client = await deps.tokens.clientIdentity(credentials.clientId)
        // Hash even for an unknown client, so timing does not tell which client ids exist.
        const valid = await verifySecret(credentials.secret, client?.secretHash ?? DUMMY_HASH)
        if (!client || !valid) {
          await deps.throttle.recordFailure(attempt)
          return oauthError(
            reply,
            401,
            'invalid_client',
            'Client authentication failed',
            credentials.method === 'basic' ? { 'www-authenticate': `Basic realm="${request.params.realm}"` } : {},
          )
        }
        await deps.throttle.recordSuccess(attempt)
        const token = await deps.tokens.issue(client.identity, undefined, request.params.realm)
        return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(token)
      },
    )
  })

  app.get(
    `${realmPath}/protocol/openid-connect/certs`,
    {
      config: open,
      schema: {
        operationId: 'getJsonWebKeys',
        tags,
        summary: 'JSON Web Key Set: the public keys tokens are signed with',
        params: RealmParams,
        response: { 200: JsonWebKeySet },
      },
    },
    async (request, reply) => {
      if (!checkRealm(request.params, reply)) return reply
      return deps.keys.jwks()
    },
  )
  app.get(
    `${realmPath}/.well-known/openid-configuration`,
    {
      config: open,
      schema: {
        operationId: 'getOpenidConfiguration',
        tags,
        summary: 'OpenID Connect discovery document of the built-in issuer',
        params: RealmParams,
        response: { 200: OpenidConfiguration },
      },
    },
    async (request, reply) => {
      if (!checkRealm(request.params, reply)) return reply
      const issuer = deps.tokens.issuerOf(request.params.realm)
      return {
        issuer,
        token_endpoint: `${issuer}/protocol/openid-connect/token`,
        jwks_uri: `${issuer}/protocol/openid-connect/certs`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
        id_token_signing_alg_values_supported: ['ES256'],
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
      }
    },
  )
}
