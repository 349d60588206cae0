import { describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { newSecret, sign, signatureHeader, verifies } from './signing.ts'

describe(sign.name, () => {
  it('matches the Standard Webhooks specification’s test vector', () => {
    // From the specification (standard-webhooks.com): secret, id, timestamp and payload, and the expected signature.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek'
    const body = '{"test": 2432232314}'
    expect(sign(secret, id, 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  it('is verified by an independent implementation (the standardwebhooks package), both secrets during a rotation', () => {
    const [old, current] = [newSecret(), newSecret()]
    const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test' })
    const timestamp = Math.floor(Date.now() / 1000)
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader([current, old], 'evt_1', timestamp, body),
    }
    expect(new Webhook(current).verify(body, headers)).toEqual({ id: 'evt_1', type: 'webhook.test' })
    expect(new Webhook(old).verify(body, headers)).toEqual({ id: 'evt_1', type: 'webhook.test' })
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow()
  })

  it('makes secrets of 32 random bytes in padded base64, and refuses a tampered body', () => {
    const secret = newSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const header = signatureHeader([secret], 'evt_2', 1_700_000_000, '{"a":1}')
    expect(verifies(secret, header, 'evt_2', 1_700_000_000, '{"a":1}')).toBe(true)
    expect(verifies(secret, header, 'evt_2', 1_700_000_000, '{"a":2}')).toBe(false)
    expect(verifies(secret, header, 'evt_2', 1_700_000_001, '{"a":1}')).toBe(false)
  })
})
