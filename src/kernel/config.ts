import net from 'node:net'
import path from 'node:path'

/** Everything the process reads from its environment, validated once at start. */
export interface Config {
  port: number
  host: string
  databaseUrl: string | undefined
  /** Streaming replicas for the query layer's reads (none: the primary reads). */
  databaseReadUrls: string[]
  databaseReadMaxLagMs: number
  databasePoolMax: number
  /** Shared buffers of the embedded database, in MB (unused on PostgreSQL). */
  pgliteSharedBuffersMb: number
  dataDir: string
  /** Root of Expert exports (`{providerRoot}`): files go under `<exportDir>/exports/queryStudio/`. */
  exportDir: string
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  shutdownTimeoutMs: number
  heartbeatIntervalMs: number
  instanceStaleAfterMs: number
  timerPollIntervalMs: number
  /** Billing accounts (or invoices) per batch transaction of a bill run step; undefined: 500 (100 embedded). */
  billRunBatchSize: number | undefined
  /** WEBHOOK_PRIVATE_TARGETS=allow: webhook endpoints may be plain HTTP and private addresses (development, tests). */
  webhookPrivateTargets: boolean
  publicUrl: string | undefined
  /** Which proxies' X-Forwarded-For is believed for the client address (Fastify's `trustProxy`); false: none. */
  trustProxy: TrustProxy
  auth: AuthConfig
}

/** false (the default), true (any sender: only when nothing reaches Obol but the proxy), a hop count, or addresses. */
export type TrustProxy = boolean | number | string[]

export interface AuthConfig {
  realm: string
  tokenTtlSec: number
  /** An external OpenID provider (e.g. Keycloak realm URL); unset: Obol's own issuer. */
  issuerUrl: string | undefined
  /** Expected `aud` of external tokens (unset: not checked) and the client whose resource roles count. */
  audience: string | undefined
  resourceClient: string
  adminClientId: string
  adminClientSecret: string | undefined
  adminUsername: string
  adminPassword: string | undefined
  portalSessionTtlSec: number
  maxFailures: number
  /** Failures from one address, whatever the identity, before the address is refused (default 10 × maxFailures). */
  maxAddressFailures: number
  failureWindowSec: number
  /** Longest lifetime (exp − iat) accepted from an external issuer's tokens. */
  maxExternalTokenTtlSec: number
}

export class ConfigError extends Error {
  readonly variable: string
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'ConfigError'
    this.variable = variable
  }
}

/**
 * Shared buffers of the embedded database by default, in MB. PGlite zeroes PostgreSQL's whole shared memory inside
 * its WebAssembly memory when it opens, so every MB of buffers is resident from the start whether used or not; a
 * page outside them is read back from the operating system's page cache, so 4 MB costs only where the pages in use
 * exceed 4 MB (docs/performance.md, Memory, "PGlite's shared memory").
 */
export const PGLITE_SHARED_BUFFERS_MB = 4

/** One entry per variable: the README's configuration table is checked against this list by a test. */
export const CONFIG_VARIABLES = [
  { name: 'PORT', default: '8080', description: 'HTTP port (1-65535)' },
  { name: 'HOST', default: '127.0.0.1', description: 'interface to listen on' },
  { name: 'DATABASE_URL', default: '(unset: embedded PGlite)', description: 'PostgreSQL 15+ connection URL' },
  {
    name: 'DATABASE_READ_URL',
    default: '(unset)',
    description: 'streaming read replicas (comma-separated URLs) for Query API, report, Deep reads',
  },
  {
    name: 'DATABASE_READ_MAX_LAG_MS',
    default: '5000',
    description: 'a replica whose data is older than this is not read',
  },
  { name: 'DATABASE_POOL_MAX', default: '10', description: 'connections in the PostgreSQL pool' },
  { name: 'DATA_DIR', default: './data', description: 'embedded database and exports' },
  {
    name: 'PGLITE_SHARED_BUFFERS_MB',
    default: '4',
    description: 'shared buffers of the embedded database (1-1024), each MB resident from the start',
  },
  {
    name: 'EXPORT_DIR',
    default: '(DATA_DIR)',
    description: 'root of Expert CSV exports and invoice PDFs (shared storage when several instances run)',
  },
  { name: 'LOG_LEVEL', default: 'info', description: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'SHUTDOWN_TIMEOUT_MS', default: '10000', description: 'how long SIGTERM waits for requests and jobs' },
  { name: 'HEARTBEAT_INTERVAL_MS', default: '5000', description: 'instance heartbeat period' },
  { name: 'INSTANCE_STALE_AFTER_MS', default: '30000', description: 'silence after which an instance is dead' },
  { name: 'TIMER_POLL_INTERVAL_MS', default: '1000', description: 'how often due job timers are claimed' },
  {
    name: 'BILL_RUN_BATCH_SIZE',
    default: '500 (100 embedded)',
    description: 'billing accounts (or invoices) per transaction of a bill run step',
  },
  {
    name: 'WEBHOOK_PRIVATE_TARGETS',
    default: 'refuse',
    description: '`allow`: webhook endpoints may be http:// and private or loopback addresses (development, tests)',
  },
  { name: 'PUBLIC_URL', default: '(http://HOST:PORT)', description: 'base URL printed at start and used in links' },
  { name: 'AUTH_REALM', default: 'obol', description: 'realm of the built-in token issuer (opencell is served too)' },
  { name: 'AUTH_TOKEN_TTL_SEC', default: '300', description: 'lifetime of issued access tokens' },
  { name: 'AUTH_ISSUER_URL', default: '(unset: built-in issuer)', description: 'external OpenID provider to trust' },
  { name: 'AUTH_AUDIENCE', default: '(unset)', description: 'required aud of external tokens' },
  { name: 'AUTH_RESOURCE_CLIENT', default: 'obol', description: 'client whose resource_access roles count' },
  {
    name: 'OBOL_ADMIN_CLIENT_ID',
    default: 'obol-admin',
    description: 'client id of the bootstrap admin service account',
  },
  { name: 'OBOL_ADMIN_CLIENT_SECRET', default: '(generated, printed once)', description: 'its secret' },
  { name: 'OBOL_ADMIN_USERNAME', default: 'admin', description: 'the first human administrator' },
  { name: 'OBOL_ADMIN_PASSWORD', default: '(generated, printed once)', description: 'their password' },
  { name: 'PORTAL_SESSION_TTL_SEC', default: '28800', description: 'lifetime of a portal session' },
  {
    name: 'AUTH_MAX_FAILURES',
    default: '10',
    description: 'failed authentications of one client or user from one address before 429',
  },
  {
    name: 'AUTH_MAX_ADDRESS_FAILURES',
    default: '(10 × AUTH_MAX_FAILURES)',
    description: 'failed authentications from one address, whatever the identity, before 429',
  },
  { name: 'AUTH_FAILURE_WINDOW_SEC', default: '300', description: 'window over which failures are counted' },
  {
    name: 'AUTH_MAX_TOKEN_TTL_SEC',
    default: '86400',
    description: 'longest lifetime (exp − iat) accepted in an external issuer token',
  },
  {
    name: 'TRUST_PROXY',
    default: '(unset: off)',
    description: 'proxies whose X-Forwarded-For gives the client address: addresses or CIDRs, a hop count, or true',
  },
] as const

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  if (!(values as readonly string[]).includes(raw))
    throw new ConfigError(name, `expected one of ${values.join(', ')}, got '${raw}'`)
  return raw as T
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(name, `expected an integer between ${min} and ${max}, got '${raw}'`)
  const value = Number(raw.trim())
  if (value < min || value > max)
    throw new ConfigError(name, `expected an integer between ${min} and ${max}, got '${raw}'`)
  return value
}

function postgresUrl(env: NodeJS.ProcessEnv, name: string, value = env[name]): string | undefined {
  const raw = value
  if (raw === undefined || raw.trim() === '') return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(name, 'expected a URL of the form postgres://user:password@host:5432/database')
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(name, `expected a postgres:// or postgresql:// URL, got protocol '${url.protocol}'`)
  }
  return raw
}

/** A comma-separated list of PostgreSQL URLs (a URL holding a comma must percent-encode it). */
function postgresUrls(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return []
  const urls = raw.split(',').map((part) => postgresUrl(env, name, part.trim()))
  if (urls.some((url) => url === undefined))
    throw new ConfigError(name, 'expected comma-separated URLs of the form postgres://user:password@host:5432/database')
  return [...new Set(urls as string[])]
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got '${env.LOG_LEVEL ?? ''}'`)
  }
  const host = (env.HOST ?? '127.0.0.1').trim()
  if (host === '' || /\s/.test(host))
    throw new ConfigError('HOST', `expected a host name or IP address, got '${env.HOST ?? ''}'`)
  const publicUrl = env.PUBLIC_URL?.trim()
  if (publicUrl) {
    try {
      const u = new URL(publicUrl)
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol')
    } catch {
      throw new ConfigError('PUBLIC_URL', `expected an http:// or https:// URL, got '${publicUrl}'`)
    }
  }
  const dataDir = (env.DATA_DIR ?? './data').trim()
  if (dataDir === '') throw new ConfigError('DATA_DIR', 'expected a directory path, got an empty value')
  const databaseUrl = postgresUrl(env, 'DATABASE_URL')
  const databaseReadUrls = postgresUrls(env, 'DATABASE_READ_URL')
  if (databaseReadUrls.length > 0 && !databaseUrl)
    throw new ConfigError('DATABASE_READ_URL', 'replicas need their primary: set DATABASE_URL too')
  return {
    port: integer(env, 'PORT', 8080, 1, 65535),
    host,
    databaseUrl,
    databaseReadUrls,
    databaseReadMaxLagMs: integer(env, 'DATABASE_READ_MAX_LAG_MS', 5_000, 0, 3_600_000),
    databasePoolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    pgliteSharedBuffersMb: integer(env, 'PGLITE_SHARED_BUFFERS_MB', PGLITE_SHARED_BUFFERS_MB, 1, 1024),
    dataDir: path.resolve(dataDir),
    exportDir: path.resolve(env.EXPORT_DIR?.trim() || dataDir),
    logLevel: logLevel as Config['logLevel'],
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    heartbeatIntervalMs: integer(env, 'HEARTBEAT_INTERVAL_MS', 5_000, 100, 600_000),
    instanceStaleAfterMs: integer(env, 'INSTANCE_STALE_AFTER_MS', 30_000, 1_000, 3_600_000),
    timerPollIntervalMs: integer(env, 'TIMER_POLL_INTERVAL_MS', 1_000, 50, 60_000),
    billRunBatchSize: env.BILL_RUN_BATCH_SIZE ? integer(env, 'BILL_RUN_BATCH_SIZE', 500, 1, 100_000) : undefined,
    webhookPrivateTargets: oneOf(env, 'WEBHOOK_PRIVATE_TARGETS', ['refuse', 'allow'], 'refuse') === 'allow',
    publicUrl: publicUrl || undefined,
    trustProxy: trustProxy(env),
    auth: loadAuthConfig(env),
  }
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal']

function trustProxy(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = env.TRUST_PROXY?.trim() ?? ''
  if (raw === '' || raw.toLowerCase() === 'false') return false
  if (raw.toLowerCase() === 'true') return true
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw)
    if (hops < 1 || hops > 10)
      throw new ConfigError('TRUST_PROXY', `expected a hop count between 1 and 10, got '${raw}'`)
    return hops
  }
  const entries = raw.split(',').map((e) => e.trim())
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/')
    const family = net.isIP(address)
    const validBits =
      bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32) && rest.length === 0)
    if (!(PROXY_NAMES.includes(entry) || (family !== 0 && validBits))) {
      throw new ConfigError(
        'TRUST_PROXY',
        `expected false, true, a hop count, or a comma-separated list of proxy addresses or CIDR ranges (or loopback, linklocal, uniquelocal), got '${entry}'`,
      )
    }
  }
  return entries
}

function text(env: NodeJS.ProcessEnv, name: string, fallback: string, pattern: RegExp, form: string): string {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!pattern.test(raw)) throw new ConfigError(name, `expected ${form}, got '${raw}'`)
  return raw
}

function loadAuthConfig(env: NodeJS.ProcessEnv): AuthConfig {
  const issuerUrl = env.AUTH_ISSUER_URL?.trim()
  if (issuerUrl) {
    try {
      const u = new URL(issuerUrl)
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol')
    } catch {
      throw new ConfigError(
        'AUTH_ISSUER_URL',
        `expected the issuer URL of an OpenID provider (https://...), got '${issuerUrl}'`,
      )
    }
  }
  const secret = env.OBOL_ADMIN_CLIENT_SECRET
  if (secret !== undefined && secret !== '' && secret.length < 16) {
    throw new ConfigError('OBOL_ADMIN_CLIENT_SECRET', 'expected at least 16 characters')
  }
  const password = env.OBOL_ADMIN_PASSWORD
  if (password !== undefined && password !== '' && password.length < 10) {
    throw new ConfigError('OBOL_ADMIN_PASSWORD', 'expected at least 10 characters')
  }
  const name = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/
  const maxFailures = integer(env, 'AUTH_MAX_FAILURES', 10, 1, 1_000_000)
  return {
    realm: text(env, 'AUTH_REALM', 'obol', /^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or -'),
    tokenTtlSec: integer(env, 'AUTH_TOKEN_TTL_SEC', 300, 30, 86_400),
    issuerUrl: issuerUrl || undefined,
    audience: env.AUTH_AUDIENCE?.trim() || undefined,
    resourceClient: text(env, 'AUTH_RESOURCE_CLIENT', 'obol', name, 'a client id'),
    adminClientId: text(env, 'OBOL_ADMIN_CLIENT_ID', 'obol-admin', name, 'a client id (letters, digits, _ . @ -)'),
    adminClientSecret: secret || undefined,
    adminUsername: text(env, 'OBOL_ADMIN_USERNAME', 'admin', name, 'a user name (letters, digits, _ . @ -)'),
    adminPassword: password || undefined,
    portalSessionTtlSec: integer(env, 'PORTAL_SESSION_TTL_SEC', 28_800, 60, 2_592_000),
    maxFailures,
    maxAddressFailures: integer(env, 'AUTH_MAX_ADDRESS_FAILURES', 10 * maxFailures, 1, 10_000_000),
    failureWindowSec: integer(env, 'AUTH_FAILURE_WINDOW_SEC', 300, 1, 86_400),
    maxExternalTokenTtlSec: integer(env, 'AUTH_MAX_TOKEN_TTL_SEC', 86_400, 30, 2_592_000),
  }
}
