import { describe, expect, it } from 'vitest'
import { loadConfig, ConfigError } from './config.ts'

describe(loadConfig.name, () => {
  it('reads replicas as comma-separated URLs, each checked', () => {
    const primary = { DATABASE_URL: 'postgres://p/obol' }
    expect(loadConfig(primary)).toMatchObject({ databaseReadUrls: [], databaseReadMaxLagMs: 5000 })
    expect(
      loadConfig({ ...primary, DATABASE_READ_URL: ' postgres://r1/obol , postgresql://r2:6432/obol' }).databaseReadUrls,
    ).toEqual(['postgres://r1/obol', 'postgresql://r2:6432/obol'])
    expect(() => loadConfig({ ...primary, DATABASE_READ_URL: 'postgres://r1/obol,mysql://r2' })).toThrow(
      "DATABASE_READ_URL: expected a postgres:// or postgresql:// URL, got protocol 'mysql:'",
    )
    expect(() => loadConfig({ ...primary, DATABASE_READ_URL: 'postgres://r1/obol,' })).toThrow(
      'DATABASE_READ_URL: expected comma-separated URLs',
    )
  })

  it('uses the documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      logLevel: 'info',
      databasePoolMax: 10,
      pgliteSharedBuffersMb: 4,
    })
    expect(config.dataDir).toMatch(/\/data$/)
  })

  it.each([
    ['PORT', 'abc', 'PORT: expected an integer between 1 and 65535'],
    ['PORT', '0', 'PORT: expected an integer between 1 and 65535'],
    ['PORT', '70000', 'PORT: expected an integer between 1 and 65535'],
    ['DATABASE_URL', 'mysql://x', "DATABASE_URL: expected a postgres:// or postgresql:// URL, got protocol 'mysql:'"],
    ['DATABASE_URL', 'not a url', 'DATABASE_URL: expected a URL of the form postgres://'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent'],
    ['DATABASE_POOL_MAX', '0', 'DATABASE_POOL_MAX: expected an integer between 1 and 1000'],
    ['PGLITE_SHARED_BUFFERS_MB', '0', 'PGLITE_SHARED_BUFFERS_MB: expected an integer between 1 and 1024'],
    ['PGLITE_SHARED_BUFFERS_MB', '16MB', 'PGLITE_SHARED_BUFFERS_MB: expected an integer between 1 and 1024'],
    ['PUBLIC_URL', 'ftp://x', 'PUBLIC_URL: expected an http:// or https:// URL'],
    ['TRUST_PROXY', 'my-proxy', 'TRUST_PROXY: expected false, true, a hop count, or a comma-separated list'],
    ['TRUST_PROXY', '10.0.0.0/33', "got '10.0.0.0/33'"],
    ['TRUST_PROXY', '0', 'TRUST_PROXY: expected a hop count between 1 and 10'],
    ['AUTH_MAX_TOKEN_TTL_SEC', '10', 'AUTH_MAX_TOKEN_TTL_SEC: expected an integer between 30 and 2592000'],
    ['DATABASE_READ_URL', 'postgres://r1/obol', 'DATABASE_READ_URL: replicas need their primary: set DATABASE_URL'],
    ['DATABASE_READ_MAX_LAG_MS', '-1', 'DATABASE_READ_MAX_LAG_MS: expected an integer between 0 and 3600000'],
  ])('stops on %s=%s naming the variable and the expected form', (name, value, message) => {
    let caught: unknown
    try {
      loadConfig({ [name]: value })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).variable).toBe(name)
    expect((caught as Error).message).toContain(message)
  })

  it.each([
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.1, 192.168.0.0/16,::1,loopback', ['10.0.0.1', '192.168.0.0/16', '::1', 'loopback']],
  ])('reads TRUST_PROXY=%j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected)
  })

  it('counts failures per address at ten times the per-identity limit unless told otherwise', () => {
    expect(loadConfig({ AUTH_MAX_FAILURES: '7' }).auth).toMatchObject({ maxFailures: 7, maxAddressFailures: 70 })
    expect(loadConfig({ AUTH_MAX_ADDRESS_FAILURES: '25' }).auth.maxAddressFailures).toBe(25)
  })
})
