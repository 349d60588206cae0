import { describe, expect, it } from 'vitest'
import { checkTarget, isBlockedAddress, TargetRefused } from './targets.ts'

describe(isBlockedAddress.name, () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '224.0.0.1',
    '192.0.2.10',
    '198.51.100.7',
    '203.0.113.200',
    '2001:db8::1',
  ])('refuses %s', (address) => {
    expect(isBlockedAddress(address)).toBe(true)
  })

  it.each(['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows %s',
    (address) => {
      expect(isBlockedAddress(address)).toBe(false)
    },
  )
})

describe(checkTarget.name, () => {
  const refusal = async (url: string, allowPrivate = false) => {
    try {
      await checkTarget(url, allowPrivate)
    } catch (error) {
      if (error instanceof TargetRefused) return error.message
      throw error
    }
    return undefined
  }

  it('refuses plain HTTP, credentials, loopback names and addresses, and hosts that do not resolve', async () => {
    expect(await refusal('http://8.8.8.8/hook')).toBe('must be an https:// URL')
    expect(await refusal('https://user:pw@8.8.8.8/hook')).toBe('must not carry credentials')
    expect(await refusal('https://127.0.0.1/hook')).toMatch(/127\.0\.0\.1, a loopback, private/)
    expect(await refusal('https://[::1]:8443/hook')).toMatch(/::1, a loopback/)
    expect(await refusal('https://localhost/hook')).toMatch(/resolves to/)
    expect(await refusal('https://no-such-host.invalid/hook')).toMatch(/does not resolve/)
    expect(await refusal('not a url')).toBe('is not a URL')
  })

  it('allows plain HTTP to loopback when private targets are allowed, connecting to the address it checked', async () => {
    const target = await checkTarget('http://127.0.0.1:9999/hook', true)
    expect(target).toMatchObject({ address: '127.0.0.1', family: 4 })
    expect(target.url.pathname).toBe('/hook')
  })
})
