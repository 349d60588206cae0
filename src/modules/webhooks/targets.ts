import { lookup } from 'node:dns/promises'
import net from 'node:net'

/**
 * Addresses an endpoint may not resolve to (invoicing-events.md §5): loopback, private (RFC 1918, unique local),
 * link-local, unspecified, carrier-grade NAT, multicast and reserved ranges, and IPv4 through IPv6 (mapped, NAT64).
 * A webhook is an outgoing request on a client's behalf: without this, a URL could reach the instance's own
 * network (a database, a metadata service).
 */
const BLOCKED = new net.BlockList()
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (TEST-NET-1, -2, -3)
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv4')
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['2001:db8::', 32], // documentation
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(address, prefix, 'ipv6')

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]
  const nat64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (!nat64) return undefined
  const high = parseInt(nat64[1]!, 16)
  const low = parseInt(nat64[2]!, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/** Whether an address is one a webhook may not reach. */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address)
  if (family === 4) return BLOCKED.check(address, 'ipv4')
  if (family !== 6) return true
  const v4 = embeddedIpv4(address)
  if (v4 !== undefined) return BLOCKED.check(v4, 'ipv4')
  // The IPv4-compatible form (::a.b.c.d, deprecated) and other forms node prints are checked as IPv6.
  return BLOCKED.check(address, 'ipv6')
}

export class TargetRefused extends Error {}

/** The address a delivery connects to: the one checked, so a second DNS answer cannot change it (rebinding). */
export interface CheckedTarget {
  readonly url: URL
  readonly address: string
  readonly family: 4 | 6
}

/**
 * Checks an endpoint URL, on write and before each attempt (DNS may change): HTTPS, no credentials, a host that
 * resolves, and every address it resolves to allowed. `allowPrivate` (WEBHOOK_PRIVATE_TARGETS=allow: development and
 * tests) allows plain HTTP and private addresses. Throws TargetRefused with the reason.
 */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<CheckedTarget> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TargetRefused('is not a URL')
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw new TargetRefused('must be an https:// URL')
  if (url.username !== '' || url.password !== '') throw new TargetRefused('must not carry credentials')
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  let addresses: { address: string; family: number }[]
  if (net.isIP(host) !== 0) {
    addresses = [{ address: host, family: net.isIP(host) }]
  } else {
    try {
      addresses = await lookup(host, { all: true, order: 'verbatim' })
    } catch {
      throw new TargetRefused(`host ${host} does not resolve`)
    }
  }
  if (addresses.length === 0) throw new TargetRefused(`host ${host} does not resolve`)
  if (!allowPrivate) {
    const blocked = addresses.find((a) => isBlockedAddress(a.address))
    if (blocked)
      throw new TargetRefused(
        `host ${host} resolves to ${blocked.address}, a loopback, private, link-local or reserved address`,
      )
  }
  const first = addresses[0]!
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 }
}
