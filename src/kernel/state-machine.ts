import { sql, type SQL } from 'drizzle-orm'
import { AppError, type ErrorCode } from './errors.ts'

/**
 * A record kind's states as one table: `(state, trigger) → next state`. Services ask it what a trigger does
 * (`next`, refusing in one place), and SQL conditions ask it which states a trigger applies to (`statesFor`,
 * `whereTrigger`), so the rule "only an OPEN reservation can be confirmed" is written once, in the table, and the
 * conditional UPDATE that claims a record says the same as the check before it.
 */
export interface StateMachine<S extends string, T extends string> {
  readonly kind: string
  readonly states: readonly S[]
  /**
   * The state `trigger` moves `state` to; refuses (the machine's error code) when the table has no such move.
   * `subject` names the record in the refusal (`Reservation 12`; default: the kind).
   */
  next(state: S, trigger: T, subject?: string): S
  can(state: S, trigger: T): boolean
  /** The triggers the table allows from `state`, in the table's order. */
  triggersFrom(state: S): T[]
  /** The states `trigger` applies to, in the table's order. */
  statesFor(trigger: T): S[]
  /**
   * `column = 'STATE'` or `column in ('A', 'B')`: the states the trigger applies to, for the condition of the
   * statement that makes the move. Written as literals (states are the table's names, never input), so a partial
   * index on `status = 'OPEN'` serves a prepared statement as it serves the plain one.
   */
  whereTrigger(column: SQL, trigger: T): SQL
  /** The refusal `next` throws: also for callers that found the state in SQL (a conditional update matched nothing). */
  refusal(state: S, trigger: T, subject?: string): AppError
}

export interface StateMachineDefinition<S extends string, T extends string> {
  /** The record kind, as messages name it (`Reservation`, `Bill run`). */
  readonly kind: string
  readonly table: { readonly [state in S]: { readonly [trigger in T]?: S } }
  /** The code of a refused move (INVALID_STATE unless the contract names another, maybe per state). */
  readonly error?: ErrorCode | ((state: S) => ErrorCode)
  /** The words of a refusal; by default the subject, its state and the triggers it allows. */
  readonly describe?: (state: S, trigger: T, allowed: readonly T[], subject: string) => string
}

/** A list of values as SQL parameters: `($1, $2)`. */
export function sqlList(values: readonly string[]): SQL {
  return sql`(${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`
}

const STATE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** A state name as an SQL literal (`'OPEN'`); only names a table declares, checked to be plain words. */
function stateLiteral(state: string): SQL {
  if (!STATE_NAME.test(state)) throw new Error(`state name ${JSON.stringify(state)} is not a plain word`)
  return sql.raw(`'${state}'`)
}

export function stateMachine<S extends string, T extends string>(
  definition: StateMachineDefinition<S, T>,
): StateMachine<S, T> {
  const { kind, table } = definition
  const states = Object.keys(table) as S[]
  const moves = (state: S): { readonly [trigger in T]?: S } => table[state]
  const triggersFrom = (state: S): T[] => Object.keys(moves(state) ?? {}) as T[]
  const statesFor = (trigger: T): S[] => states.filter((s) => moves(s)[trigger] !== undefined)
  const refusal = (state: S, trigger: T, subject: string = kind): AppError => {
    const allowed = triggersFrom(state)
    const message =
      definition.describe?.(state, trigger, allowed, subject) ??
      `${subject} is ${state}: ${trigger} is not allowed` +
        (allowed.length > 0 ? ` (it allows ${allowed.join(', ')})` : ' (no action is allowed)')
    const code = typeof definition.error === 'function' ? definition.error(state) : definition.error
    return new AppError(code ?? 'INVALID_STATE', message)
  }
  return {
    kind,
    states,
    next(state, trigger, subject) {
      const to = moves(state)?.[trigger]
      if (to === undefined) throw refusal(state, trigger, subject)
      return to
    },
    can: (state, trigger) => moves(state)?.[trigger] !== undefined,
    triggersFrom,
    statesFor,
    whereTrigger(column, trigger) {
      const from = statesFor(trigger)
      // A trigger no state allows matches nothing (an empty IN list is not SQL).
      if (from.length === 0) return sql`false`
      if (from.length === 1) return sql`${column} = ${stateLiteral(from[0]!)}`
      return sql`${column} in (${sql.join(from.map(stateLiteral), sql`, `)})`
    },
    refusal,
  }
}
