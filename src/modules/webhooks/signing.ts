import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** `whsec_` and 32 random bytes in standard, padded base64 (RFC 4648 §4): Standard Webhooks' secret format. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** The key a secret signs with: the base64 decoding of its part after `whsec_`. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
}

/**
 * Standard Webhooks' signature of a message: `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with
 * the secret. The timestamp is signed too, so a delivery seen once cannot be replayed later as new.
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The `webhook-signature` header: one signature per secret in force (two during a rotation), space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ')
}

/** Whether a header holds a valid signature of the message by the secret (what a receiver checks). */
export function verifies(secret: string, header: string, id: string, timestamp: number, body: string): boolean {
  const expected = Buffer.from(sign(secret, id, timestamp, body))
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate)
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}
