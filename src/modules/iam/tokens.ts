import { randomUUID } from 'node:crypto'
import {
  SignJWT,
  createRemoteJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose'
import { sql } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import type { AuthConfig } from '../../kernel/config.ts'
import type { Principal } from '../../kernel/http/principal.ts'
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
}

interface ObolClaims extends JWTPayload {
  azp?: string
  preferred_username?: string
  realm_access?: { roles?: unknown }
  resource_access?: Record<string, { roles?: unknown } | undefined>
  groups?: unknown
  obol_seller_codes?: unknown
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
  const roleRows = await rows<{ name: string }>(
    db,
    sql`select distinct r.name from group_member m join group_role gr on gr.group_id = m.group_id
      join role r on r.id = gr.role_id where m.user_id = ${userId} order by r.name`,
  )
  const groupRows = await rows<{ name: string; seller_codes: string[] | null }>(
    db,
    sql`select g.name, g.seller_codes from group_member m join user_group g on g.id = m.group_id where m.user_id = ${userId} order by g.name`,
  )
  // Restricted only when every group carries a seller list: one unrestricted group lifts the restriction.
  const restricted = groupRows.length > 0 && groupRows.every((g) => g.seller_codes !== null)
  const sellerCodes = restricted ? [...new Set(groupRows.flatMap((g) => g.seller_codes ?? []))].sort() : null
  return { roles: roleRows.map((r) => r.name), groups: groupRows.map((g) => g.name), sellerCodes }
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

/** Verified tokens kept (each about a kilobyte) so that a token sent again is not checked again. */
const VERIFIED_TOKENS_MAX = 10_000
/** A verified token is trusted for at most this long without a new check (a retired signing key stops it then). */
const VERIFIED_TOKEN_TRUST_MS = 60_000

type VerifiedPrincipal = Principal & { expiresAt: Date }

/** Issues and verifies access tokens: ES256 JWTs signed by Obol, or verified through an external issuer. */
export class TokenService {
  private readonly db: Db
  private readonly keys: SigningKeys
  private readonly config: AuthConfig
  private readonly issuer: string
  private external: { issuer: string; jwks: JWTVerifyGetKey } | undefined
  // A signature check costs about 0.1 ms of CPU, a fifth of a cheap request. Until a token's expiry (and at most a
  // minute), the same token string is answered from here; past its expiry it is checked in full again.
  private readonly verified = new Map<string, { principal: VerifiedPrincipal; until: number }>()

  constructor(db: Db, keys: SigningKeys, config: AuthConfig, baseUrl: string) {
    this.db = db
    this.keys = keys
    this.config = config
    this.issuer = `${baseUrl.replace(/\/$/, '')}/auth/realms/${config.realm}`
  }

  get issuerUrl(): string {
    return this.issuer
  }

  async issue(identity: Identity, ttlSec = this.config.tokenTtlSec): Promise<IssuedToken> {
    const grants = await grantsOf(this.db, identity.userId)
    const { kid, key } = await this.keys.active()
    // The claims a Keycloak client-credentials token carries, so a consumer reading roles where Keycloak writes them
    // (`resource_access.<backend client>.roles`, or `realm_access.roles`) finds them in either.
    const claims: Record<string, unknown> = {
      typ: 'Bearer',
      azp: identity.clientId ?? PORTAL_CLIENT,
      ...(identity.clientId === undefined ? {} : { client_id: identity.clientId }),
      scope: TOKEN_SCOPE,
      preferred_username: identity.username,
      realm_access: { roles: grants.roles },
      resource_access: { [this.config.resourceClient]: { roles: grants.roles } },
      groups: grants.groups,
      ...(grants.sellerCodes ? { obol_seller_codes: grants.sellerCodes } : {}),
    }
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(String(identity.userId))
      .setAudience(this.config.resourceClient)
      .setIssuedAt()
      .setExpirationTime(`${ttlSec}s`)
      .setJti(randomUUID())
      .sign(key)
    return { access_token: token, token_type: 'Bearer', expires_in: ttlSec, scope: TOKEN_SCOPE }
  }

  private async externalVerifier(): Promise<{ issuer: string; jwks: JWTVerifyGetKey }> {
    if (this.external) return this.external
    const base = this.config.issuerUrl!.replace(/\/$/, '')
    const response = await fetch(`${base}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) })
    if (!response.ok)
      throw new InvalidTokenError(`the identity provider's discovery document answered ${response.status}`)
    const discovery = (await response.json()) as { issuer?: string; jwks_uri?: string }
    if (!discovery.issuer || !discovery.jwks_uri)
      throw new InvalidTokenError('the discovery document has no issuer or jwks_uri')
    this.external = { issuer: discovery.issuer, jwks: createRemoteJWKSet(new URL(discovery.jwks_uri)) }
    return this.external
  }

  /** Verifies a bearer token and turns its claims into a principal. */
  async verify(token: string): Promise<VerifiedPrincipal> {
    const now = Date.now()
    const known = this.verified.get(token)
    if (known && known.until > now) return { ...known.principal }
    if (known) this.verified.delete(token)
    const principal = await this.verifySignature(token)
    const until = Math.min(principal.expiresAt.getTime(), now + VERIFIED_TOKEN_TRUST_MS)
    if (until > now) {
      if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(token, { principal, until })
    }
    return { ...principal }
  }

  private async verifySignature(token: string): Promise<VerifiedPrincipal> {
    let payload: ObolClaims
    try {
      if (this.config.issuerUrl) {
        const external = await this.externalVerifier()
        const result = await jwtVerify<ObolClaims>(token, external.jwks, {
          issuer: external.issuer,
          ...(this.config.audience ? { audience: this.config.audience } : {}),
          clockTolerance: 30,
        })
        payload = result.payload
      } else {
        const { kid } = decodeProtectedHeader(token)
        if (!kid) throw new InvalidTokenError('the token has no key id')
        const key = await this.keys.publicKey(kid)
        if (!key) throw new InvalidTokenError('the token was signed by an unknown key')
        const result = await jwtVerify<ObolClaims>(token, key, {
          issuer: this.issuer,
          audience: this.config.resourceClient,
          algorithms: ['ES256'],
          clockTolerance: 30,
        })
        payload = result.payload
      }
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error
      const code = (error as { code?: string }).code
      if (code === 'ERR_JWT_EXPIRED') throw new InvalidTokenError('the token has expired', true)
      throw new InvalidTokenError('the token is invalid')
    }
    const maxLifetimeSec = this.config.issuerUrl ? this.config.maxExternalTokenTtlSec : this.config.tokenTtlSec
    const lifetimeProblem = tokenLifetimeProblem(payload, maxLifetimeSec, Date.now() / 1000)
    if (lifetimeProblem) throw new InvalidTokenError(lifetimeProblem)
    const strings = (value: unknown) =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
    const roles = new Set([
      ...strings(payload.realm_access?.roles),
      ...strings(payload.resource_access?.[this.config.resourceClient]?.roles),
    ])
    const sellerCodes = Array.isArray(payload.obol_seller_codes) ? strings(payload.obol_seller_codes) : null
    return {
      subject: payload.sub ?? '',
      username: payload.preferred_username ?? payload.sub ?? '',
      clientId: payload.azp,
      roles,
      groups: strings(payload.groups),
      sellerCodes,
      expiresAt: new Date(Number(payload.exp) * 1000),
    }
  }

  /** The user behind a client id, when the client exists and is enabled. */
  async clientIdentity(clientId: string): Promise<{ identity: Identity; secretHash: string } | undefined> {
    const found = await one<{ user_id: string | number; username: string; secret_hash: string }>(
      this.db,
      sql`select c.user_id, u.username, s.secret_hash from oauth_client c join app_user u on u.id = c.user_id
        join obol_secrets.client_secret s on s.client_id = c.id
        where c.client_id = ${clientId} and c.enabled and u.enabled`,
    )
    if (!found) return undefined
    return {
      identity: { userId: Number(found.user_id), username: found.username, clientId },
      secretHash: found.secret_hash,
    }
  }
}
