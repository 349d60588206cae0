import { randomUUID } from 'node:crypto'
import {
  SignJWT,
  createRemoteJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose'
import type { Db } from '../../kernel/db/database.ts'
import { isDatabaseUnavailable } from '../../kernel/db/database-errors.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { enabledClientCredentials, findActiveUser, grantRows } from './iam.repository.ts'
import type { SigningKeys } from './signing-keys.ts'

export interface IssuedToken {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  scope: string
}

/** `azp` of tokens a portal user gets (they come from no OAuth client). */
const PORTAL_CLIENT = 'obol-portal'
/** The scopes Keycloak grants a client-credentials token by default. */
const TOKEN_SCOPE = 'profile email'

export interface Identity {
  userId: number
  username: string
  clientId: string | undefined
  /** The portal session a portal user's token is issued to (see `Principal.portalSession`). */
  portalSession?: string
}

interface ObolClaims extends JWTPayload {
  azp?: string
  preferred_username?: string
  realm_access?: { roles?: unknown }
  resource_access?: Record<string, { roles?: unknown } | undefined>
  groups?: unknown
  obol_seller_codes?: unknown
  obol_portal_session?: unknown
}

export class InvalidTokenError extends Error {
  readonly expired: boolean
  constructor(message: string, expired = false) {
    super(message)
    this.name = 'InvalidTokenError'
    this.expired = expired
  }
}

/** Roles and groups of a user, as they are now: a token carries them as of its issue time. */
export async function grantsOf(
  db: Db,
  userId: number,
): Promise<{ roles: string[]; groups: string[]; sellerCodes: string[] | null }> {
  const { roles, groups } = await grantRows(db, userId)
  // Restricted only when every group carries a seller list: one unrestricted group lifts the restriction.
  const restricted = groups.length > 0 && groups.every((g) => g.sellerCodes !== null)
  const sellerCodes = restricted ? [...new Set(groups.flatMap((g) => g.sellerCodes ?? []))].sort() : null
  return { roles, groups: groups.map((g) => g.name), sellerCodes }
}

/**
 * A user as a principal with the roles, groups and sellers they hold now, for work done on their behalf without a
 * token (a scheduled Expert run): undefined when no such user exists or they (or their client) are disabled.
 */
export async function currentPrincipal(db: Db, username: string): Promise<Principal | undefined> {
  const user = await findActiveUser(db, username)
  if (!user) return undefined
  const grants = await grantsOf(db, user.userId)
  return {
    subject: String(user.userId),
    username,
    clientId: user.clientId ?? undefined,
    roles: new Set(grants.roles),
    groups: grants.groups,
    sellerCodes: grants.sellerCodes,
  }
}

/**
 * A token must say when it expires, and live no longer than allowed: `exp − iat` (or `exp −` now without `iat`) at
 * most `maxSec` (AUTH_TOKEN_TTL_SEC for Obol's own tokens, AUTH_MAX_TOKEN_TTL_SEC for an external issuer's). A token
 * without `exp` would never expire: whoever obtained one (or the key that signs them) would keep access forever.
 */
export function tokenLifetimeProblem(payload: JWTPayload, maxSec: number, nowSec: number): string | undefined {
  if (typeof payload.exp !== 'number') return 'the token has no expiry (exp)'
  const start = typeof payload.iat === 'number' ? payload.iat : nowSec
  if (payload.exp - start > maxSec) return `the token lives longer than ${maxSec} s`
  return undefined
}

/**
 * Opencell's realm, served beside the configured one (AUTH_REALM) as another name of the same issuer: the same keys,
 * clients and users, so tools written for Opencell log in where they expect to (`/auth/realms/opencell/...`) on an
 * instance native clients use too (docs/decisions.md, "Identity and access").
 */
export const OPENCELL_REALM = 'opencell'

/** Verified tokens kept (each about a kilobyte) so that a token sent again is not checked again. */
const VERIFIED_TOKENS_MAX = 10_000
/** A verified token is trusted for at most this long without a new check (a retired signing key stops it then). */
const VERIFIED_TOKEN_TRUST_MS = 60_000

type VerifiedPrincipal = Principal & { expiresAt: Date }

export type TokenService = ReturnType<typeof createTokenService>

/** Issues and verifies access tokens: ES256 JWTs signed by Obol, or verified through an external issuer. */
export function createTokenService(deps: { db: Db; keys: SigningKeys; config: AuthConfig; baseUrl: string }) {
  const { db, keys, config } = deps
  const issuerOf = (realm: string) => `${deps.baseUrl.replace(/\/$/, '')}/auth/realms/${realm}`
  const realms = [...new Set([config.realm, OPENCELL_REALM])]
  const issuer = issuerOf(config.realm)
  // A token names the realm it was asked of; every realm's token is good on the whole API.
  const issuers = realms.map(issuerOf)
  let external: { issuer: string; jwks: JWTVerifyGetKey } | undefined
  // A signature check is a sizeable part of a cheap request's CPU (docs/performance.md, "Figures behind the code"). Until a token's expiry (and at most a
  // minute), the same token string is answered from here; past its expiry it is checked in full again.
  const verified = new Map<string, { principal: VerifiedPrincipal; until: number }>()

  async function externalVerifier(): Promise<{ issuer: string; jwks: JWTVerifyGetKey }> {
    if (external) return external
    const base = config.issuerUrl!.replace(/\/$/, '')
    const response = await fetch(`${base}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })
    if (!response.ok)
      throw new InvalidTokenError(`the identity provider's discovery document answered ${response.status}`)
    const discovery = (await response.json()) as { issuer?: string; jwks_uri?: string }
    if (!discovery.issuer || !discovery.jwks_uri)
      throw new InvalidTokenError('the discovery document has no issuer or jwks_uri')
    external = { issuer: discovery.issuer, jwks: createRemoteJWKSet(new URL(discovery.jwks_uri)) }
    return external
  }

  async function verifySignature(token: string): Promise<VerifiedPrincipal> {
    let payload: ObolClaims
    try {
      if (config.issuerUrl) {
        const provider = await externalVerifier()
        const result = await jwtVerify<ObolClaims>(token, provider.jwks, {
          issuer: provider.issuer,
          ...(config.audience ? { audience: config.audience } : {}),
          clockTolerance: 30,
        })
        payload = result.payload
      } else {
        const { kid } = decodeProtectedHeader(token)
        if (!kid) throw new InvalidTokenError('the token has no key id')
        const key = await keys.publicKey(kid)
        if (!key) throw new InvalidTokenError('the token was signed by an unknown key')
        const result = await jwtVerify<ObolClaims>(token, key, {
          issuer: issuers,
          audience: config.resourceClient,
          algorithms: ['ES256'],
          clockTolerance: 30,
        })
        payload = result.payload
      }
    } catch (error) {
      if (error instanceof InvalidTokenError || isDatabaseUnavailable(error)) throw error
      const code = (error as { code?: string }).code
      if (code === 'ERR_JWT_EXPIRED') throw new InvalidTokenError('the token has expired', true)
      throw new InvalidTokenError('the token is invalid')
    }
    const maxLifetimeSec = config.issuerUrl ? config.maxExternalTokenTtlSec : config.tokenTtlSec
    const lifetimeProblem = tokenLifetimeProblem(payload, maxLifetimeSec, Date.now() / 1000)
    if (lifetimeProblem) throw new InvalidTokenError(lifetimeProblem)
    const strings = (value: unknown) =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
    const roles = new Set([
      ...strings(payload.realm_access?.roles),
      ...strings(payload.resource_access?.[config.resourceClient]?.roles),
    ])
    const sellerCodes = Array.isArray(payload.obol_seller_codes) ? strings(payload.obol_seller_codes) : null
    // Only Obol's own portal tokens name a portal session.
    const portalSession =
      !config.issuerUrl && payload.azp === PORTAL_CLIENT && typeof payload.obol_portal_session === 'string'
        ? payload.obol_portal_session
        : undefined
    const realm = config.issuerUrl ? undefined : realms.find((name) => issuerOf(name) === payload.iss)
    return {
      ...(realm === undefined ? {} : { realm }),
      subject: payload.sub ?? '',
      username: payload.preferred_username ?? payload.sub ?? '',
      clientId: payload.azp,
      roles,
      groups: strings(payload.groups),
      sellerCodes,
      ...(portalSession === undefined ? {} : { portalSession }),
      expiresAt: new Date(Number(payload.exp) * 1000),
    }
  }

  return {
    /** The issuer Obol's own tokens name: `<public URL>/auth/realms/<realm>` (AUTH_REALM). */
    issuerUrl: issuer,
    /** The realms the built-in issuer serves: AUTH_REALM and `opencell`. */
    realms,
    /** The issuer of one of `realms`, which its tokens name and its discovery document gives. */
    issuerOf,
    /** The signing keys it issues and verifies with (tests sign tokens of their own with them). */
    keys,

    /** A token for `identity`, issued by `realm` (one of `realms`; the configured one unless said). */
    async issue(identity: Identity, ttlSec = config.tokenTtlSec, realm = config.realm): Promise<IssuedToken> {
      const grants = await grantsOf(db, identity.userId)
      const { kid, key } = await keys.active()
      // The claims a Keycloak client-credentials token carries, so a consumer reading roles where Keycloak writes them
      // (`resource_access.<backend client>.roles`, or `realm_access.roles`) finds them in either.
      const claims: Record<string, unknown> = {
        typ: 'Bearer',
        azp: identity.clientId ?? PORTAL_CLIENT,
        ...(identity.clientId === undefined ? {} : { client_id: identity.clientId }),
        scope: TOKEN_SCOPE,
        preferred_username: identity.username,
        realm_access: { roles: grants.roles },
        resource_access: { [config.resourceClient]: { roles: grants.roles } },
        groups: grants.groups,
        ...(grants.sellerCodes ? { obol_seller_codes: grants.sellerCodes } : {}),
        ...(identity.portalSession === undefined ? {} : { obol_portal_session: identity.portalSession }),
      }
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
        .setIssuer(issuerOf(realm))
        .setSubject(String(identity.userId))
        .setAudience(config.resourceClient)
        .setIssuedAt()
        .setExpirationTime(`${ttlSec}s`)
        .setJti(randomUUID())
        .sign(key)
      return { access_token: token, token_type: 'Bearer', expires_in: ttlSec, scope: TOKEN_SCOPE }
    },

    /** Verifies a bearer token and turns its claims into a principal. */
    async verify(token: string): Promise<VerifiedPrincipal> {
      const now = Date.now()
      const known = verified.get(token)
      if (known && known.until > now) return { ...known.principal }
      if (known) verified.delete(token)
      const principal = await verifySignature(token)
      const until = Math.min(principal.expiresAt.getTime(), now + VERIFIED_TOKEN_TRUST_MS)
      if (until > now) {
        if (verified.size >= VERIFIED_TOKENS_MAX) verified.delete(verified.keys().next().value!)
        verified.set(token, { principal, until })
      }
      return { ...principal }
    },

    /** The user behind a client id, when the client exists and is enabled. */
    async clientIdentity(clientId: string): Promise<{ identity: Identity; secretHash: string } | undefined> {
      const found = await enabledClientCredentials(db, clientId)
      if (!found) return undefined
      return {
        identity: { userId: found.userId, username: found.username, clientId },
        secretHash: found.secretHash,
      }
    },
  }
}
