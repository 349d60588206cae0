import { randomUUID } from 'node:crypto'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose'
import { sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'

interface StoredKey {
  kid: string
  private_jwk: JWK
  public_jwk: JWK
  retired: boolean
}

const KEY_CREATION_LOCK = 7_262_002
const REFRESH_MS = 30_000

/**
 * ES256 signing keys, persisted in the secrets schema so tokens survive restarts and every instance signs and
 * verifies with the same keys. Rotation retires the active key; retired keys stay in the JWKS until the last
 * token they signed has expired.
 */
export class SigningKeys {
  private cache: { at: number; keys: StoredKey[] } | undefined
  private readonly privateKeys = new Map<string, CryptoKey>()
  private readonly publicKeys = new Map<string, CryptoKey>()
  private readonly db: Db
  private readonly tokenTtlSec: number

  constructor(db: Db, tokenTtlSec: number) {
    this.db = db
    this.tokenTtlSec = tokenTtlSec
  }

  private async load(force = false): Promise<StoredKey[]> {
    if (!force && this.cache && Date.now() - this.cache.at < REFRESH_MS) return this.cache.keys
    // Retired keys are kept for the token lifetime plus a minute of clock skew.
    const keys = await rows<StoredKey>(
      this.db,
      sql`select kid, private_jwk, public_jwk, retired_at is not null as retired from obol_secrets.signing_key
        where retired_at is null or retired_at > now() - make_interval(secs => ${this.tokenTtlSec + 60})
        order by created_at desc, kid`,
    )
    this.cache = { at: Date.now(), keys }
    return keys
  }

  /** The key new tokens are signed with; created on first use. */
  async active(): Promise<{ kid: string; key: CryptoKey }> {
    let current = (await this.load()).find((k) => !k.retired)
    if (!current) {
      await this.create(false)
      current = (await this.load(true)).find((k) => !k.retired)
    }
    if (!current) throw new Error('no active signing key')
    let key = this.privateKeys.get(current.kid)
    if (!key) {
      key = (await importJWK(current.private_jwk, 'ES256')) as CryptoKey
      this.privateKeys.set(current.kid, key)
    }
    return { kid: current.kid, key }
  }

  /** The public key for a `kid`, re-reading the table once when it is unknown (another instance rotated). */
  async publicKey(kid: string): Promise<CryptoKey | undefined> {
    const cached = this.publicKeys.get(kid)
    if (cached) return cached
    let stored = (await this.load()).find((k) => k.kid === kid)
    stored ??= (await this.load(true)).find((k) => k.kid === kid)
    if (!stored) return undefined
    const key = (await importJWK(stored.public_jwk, 'ES256')) as CryptoKey
    this.publicKeys.set(kid, key)
    return key
  }

  async jwks(): Promise<{ keys: (JWK & { kty: string; kid: string; alg: string; use: string })[] }> {
    return {
      keys: (await this.load()).map((k) => ({
        ...k.public_jwk,
        kty: k.public_jwk.kty ?? 'EC',
        kid: k.kid,
        alg: 'ES256',
        use: 'sig',
      })),
    }
  }

  /** Creates a key; with `retireOthers`, the new key takes over and the old ones only verify. */
  async create(retireOthers: boolean): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true })
    const kid = randomUUID()
    const privateJwk = await exportJWK(privateKey)
    const publicJwk = await exportJWK(publicKey)
    await withTransaction(this.db, async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${KEY_CREATION_LOCK})`)
      if (!retireOthers) {
        const existing = await rows(tx, sql`select kid from obol_secrets.signing_key where retired_at is null`)
        if (existing.length > 0) return
      } else {
        await tx.execute(sql`update obol_secrets.signing_key set retired_at = now() where retired_at is null`)
      }
      await tx.execute(sql`insert into obol_secrets.signing_key (kid, algorithm, private_jwk, public_jwk)
        values (${kid}, 'ES256', ${JSON.stringify(privateJwk)}::jsonb, ${JSON.stringify(publicJwk)}::jsonb)`)
    })
    this.cache = undefined
    return kid
  }
}
