import { randomBytes } from 'node:crypto'

/** Crockford's base32: no I, L, O, U, so an id reads and copies without ambiguity. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * `evt_` and 26 characters: the instant in milliseconds (10 characters, so ids sort by time as text) and 80 random
 * bits (16 characters). Two events of one millisecond differ by their random part.
 */
export function eventId(at: Date): string {
  let time = at.getTime()
  let head = ''
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32]! + head
    time = Math.floor(time / 32)
  }
  const bytes = randomBytes(10)
  let tail = ''
  // 80 bits as 16 groups of 5, read from the bytes' bits in order.
  for (let i = 0; i < 16; i++) {
    const bit = i * 5
    const byte = Math.floor(bit / 8)
    const shift = bit % 8
    const value = ((bytes[byte]! << 8) | (bytes[byte + 1] ?? 0)) >> (11 - shift)
    tail += ALPHABET[value & 31]!
  }
  return `evt_${head}${tail}`
}
