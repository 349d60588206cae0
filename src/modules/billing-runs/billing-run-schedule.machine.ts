import { stateMachine } from '../../kernel/state-machine.ts'
import type { ScheduleStatus } from './billing-runs.model.ts'

/**
 * What moves a schedule: `pause` and `resume` (a person; each a no-op in the state it leads to), `fire` (its timer,
 * or a time zone change computing the next firing: ACTIVE only), `end` (no firing left after one: COMPLETED) and
 * `lapse` (a recurring schedule paused past its end date: COMPLETED).
 */
export type ScheduleTrigger = 'pause' | 'resume' | 'fire' | 'end' | 'lapse'

/**
 * A billing run schedule's states, the one table its status changes read: the service before a move (INVALID_STATE,
 * in the contract's words) and the statements that claim schedules (`whereTrigger`).
 */
export const scheduleMachine = stateMachine<ScheduleStatus, ScheduleTrigger>({
  kind: 'Schedule',
  table: {
    ACTIVE: { pause: 'PAUSED', resume: 'ACTIVE', fire: 'ACTIVE', end: 'COMPLETED' },
    PAUSED: { pause: 'PAUSED', resume: 'ACTIVE', end: 'COMPLETED', lapse: 'COMPLETED' },
    COMPLETED: {},
  },
  describe: (state, trigger, allowed, subject) =>
    trigger === 'pause'
      ? `${subject} is ${state}: there is nothing left to pause`
      : trigger === 'resume'
        ? `${subject} is ${state} and cannot be resumed`
        : `${subject} is ${state}: ${trigger} is not allowed (it allows ${allowed.join(', ') || 'nothing'})`,
})
