import { stateMachine } from '../../kernel/state-machine.ts'

export type ReservationStatus = 'OPEN' | 'CONFIRMED' | 'CANCELLED' | 'EXPIRED'
export type ReservationTrigger = 'confirm' | 'cancel' | 'expire'

/**
 * A reservation's states, the one table its status changes read: an OPEN reservation is confirmed, cancelled or
 * expired, once; every other status is final. The services ask it before a move (`next`, INVALID_STATE), and the
 * statements that make the move ask it for their condition (`whereTrigger`), so the check before a write and the
 * write's own condition say the same.
 */
export const reservationMachine = stateMachine<ReservationStatus, ReservationTrigger>({
  kind: 'Reservation',
  table: {
    OPEN: { confirm: 'CONFIRMED', cancel: 'CANCELLED', expire: 'EXPIRED' },
    CONFIRMED: {},
    CANCELLED: {},
    EXPIRED: {},
  },
  describe: (state, _trigger, _allowed, subject) =>
    `${subject} is ${state}: only an OPEN reservation can be confirmed or cancelled`,
})

/** The trigger that closes a reservation in `status`. */
export const CLOSING_TRIGGER: Readonly<Record<'CONFIRMED' | 'CANCELLED' | 'EXPIRED', ReservationTrigger>> = {
  CONFIRMED: 'confirm',
  CANCELLED: 'cancel',
  EXPIRED: 'expire',
}

/** Whether a reservation in `status` still holds what it took (counter units, an amount): it can still be closed. */
export const holdsBalance = (status: ReservationStatus): boolean => reservationMachine.triggersFrom(status).length > 0
