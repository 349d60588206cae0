import { describe, expect, it } from 'vitest'
import {
  canDeleteOffer,
  canMoveOffer,
  nextOfferStatuses,
  OFFER_STATUSES,
  type OfferStatus,
} from './offer-status.model.ts'

const ALLOWED: Record<OfferStatus, OfferStatus[]> = {
  IN_STUDY: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'REJECTED'],
  IN_DESIGN: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'REJECTED'],
  IN_TEST: ['IN_STUDY', 'IN_DESIGN', 'IN_TEST', 'ACTIVE', 'REJECTED'],
  ACTIVE: ['ACTIVE', 'LAUNCHED', 'RETIRED'],
  LAUNCHED: ['LAUNCHED', 'RETIRED'],
  RETIRED: ['RETIRED', 'OBSOLETE'],
  OBSOLETE: ['OBSOLETE'],
  REJECTED: ['REJECTED'],
}

describe(canMoveOffer.name, () => {
  const pairs = OFFER_STATUSES.flatMap((from) => OFFER_STATUSES.map((to) => [from, to] as const))
  it.each(pairs)('%s → %s follows the transition table', (from, to) => {
    expect(canMoveOffer(from, to)).toBe(ALLOWED[from].includes(to))
  })
})

describe(nextOfferStatuses.name, () => {
  it.each(OFFER_STATUSES)('lists the moves out of %s in life-cycle order', (from) => {
    expect(nextOfferStatuses(from)).toEqual(OFFER_STATUSES.filter((to) => to !== from && ALLOWED[from].includes(to)))
  })
})

describe(canDeleteOffer.name, () => {
  it.each(OFFER_STATUSES)('lets %s be deleted unless it can be ordered', (status) => {
    expect(canDeleteOffer(status)).toBe(status !== 'ACTIVE' && status !== 'LAUNCHED')
  })
})
