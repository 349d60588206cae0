import { stateMachine } from '../../kernel/state-machine.ts'

/** Backend life-cycle statuses of an offer (shared by both offer interfaces). */
export const OFFER_STATUSES = [
  'IN_STUDY',
  'IN_DESIGN',
  'IN_TEST',
  'ACTIVE',
  'LAUNCHED',
  'RETIRED',
  'OBSOLETE',
  'REJECTED',
] as const
export type OfferStatus = (typeof OFFER_STATUSES)[number]

export const DRAFT_STATUSES: readonly OfferStatus[] = ['IN_STUDY', 'IN_DESIGN', 'IN_TEST']
/** Where a new offer may start: a draft status, ACTIVE or LAUNCHED; IN_DESIGN when none is given. */
export const INITIAL_STATUSES: readonly OfferStatus[] = [...DRAFT_STATUSES, 'ACTIVE', 'LAUNCHED']
export const DEFAULT_STATUS: OfferStatus = 'IN_DESIGN'
/** Orders need an offer in one of these. */
export const ORDERABLE_STATUSES: readonly OfferStatus[] = ['ACTIVE', 'LAUNCHED']

/** The portal's words for the backend statuses. */
export const PORTAL_STATUS: Readonly<Record<OfferStatus, 'draft' | 'ready' | 'live' | 'retired'>> = {
  IN_STUDY: 'draft',
  IN_DESIGN: 'draft',
  IN_TEST: 'draft',
  ACTIVE: 'ready',
  LAUNCHED: 'live',
  RETIRED: 'retired',
  OBSOLETE: 'retired',
  REJECTED: 'retired',
}

export const isOfferStatus = (value: string): value is OfferStatus =>
  (OFFER_STATUSES as readonly string[]).includes(value)

/** Whether an offer in this stored status can be ordered (ACTIVE or LAUNCHED). */
export const isOrderableStatus = (value: string): boolean => isOfferStatus(value) && ORDERABLE_STATUSES.includes(value)

/** The moves among drafts: each draft status to any other, or to REJECTED. */
const DRAFT_MOVES = { IN_STUDY: 'IN_STUDY', IN_DESIGN: 'IN_DESIGN', IN_TEST: 'IN_TEST', REJECTED: 'REJECTED' } as const

/**
 * An offer's life cycle as one table, `(status, trigger) → next`, the trigger being the status asked for: staying put
 * is allowed; draft statuses move freely among themselves and to REJECTED; then IN_TEST → ACTIVE → LAUNCHED →
 * RETIRED → OBSOLETE, and ACTIVE → RETIRED. Both offer interfaces read it (their refusal, 422
 * OFFER_STATUS_TRANSITION_INVALID, names the statuses in each interface's words).
 */
export const offerMachine = stateMachine<OfferStatus, OfferStatus>({
  kind: 'Offer',
  error: 'OFFER_STATUS_TRANSITION_INVALID',
  table: {
    IN_STUDY: DRAFT_MOVES,
    IN_DESIGN: DRAFT_MOVES,
    IN_TEST: { ...DRAFT_MOVES, ACTIVE: 'ACTIVE' },
    ACTIVE: { ACTIVE: 'ACTIVE', LAUNCHED: 'LAUNCHED', RETIRED: 'RETIRED' },
    LAUNCHED: { LAUNCHED: 'LAUNCHED', RETIRED: 'RETIRED' },
    RETIRED: { RETIRED: 'RETIRED', OBSOLETE: 'OBSOLETE' },
    OBSOLETE: { OBSOLETE: 'OBSOLETE' },
    REJECTED: { REJECTED: 'REJECTED' },
  },
})

/** Whether an offer may move from one status to another (`offerMachine`). */
export const canMoveOffer = (from: OfferStatus, to: OfferStatus): boolean => offerMachine.can(from, to)

/** The statuses an offer may move to from `from` (staying put aside), in life-cycle order. */
export const nextOfferStatuses = (from: OfferStatus): OfferStatus[] =>
  OFFER_STATUSES.filter((to) => to !== from && canMoveOffer(from, to))

/**
 * Whether an offer in this status may be deleted: an offer that can be ordered (ACTIVE, LAUNCHED) must be retired
 * first; drafts and retired offers may go (their subscriptions permitting).
 */
export const canDeleteOffer = (status: OfferStatus): boolean => !ORDERABLE_STATUSES.includes(status)
