import { sql, type SQL } from 'drizzle-orm'
import { one, type Db } from '../db/database.ts'
import type { Clock } from '../clock.ts'
import { eventId } from './event-id.ts'

/** A state change to report: its type, the record it is about, the record as its v1 resource shows it after. */
export interface EventInput {
  readonly type: string
  readonly aggregate: { readonly type: string; readonly id: string | number }
  /** The record as its v1 resource shows it after the change (JSON-serializable). */
  readonly object: unknown
  /** The changed fields' former values, where there are some. */
  readonly previous?: Record<string, unknown>
  /** The seller the record belongs to (seller row security on events and deliveries); none for platform records. */
  readonly sellerId?: number | null
}

/**
 * An event written by a larger statement (one that must stay one statement): its parts as SQL over that statement's
 * own CTEs. `when` gates it: the event is written only when the change happened.
 */
export interface EventSql {
  readonly type: string
  readonly aggregateType: string
  readonly aggregateId: SQL
  readonly object: SQL
  readonly previous?: SQL
  readonly sellerId: SQL
  readonly when: SQL
}

/** An event as written: its public id and what listeners need to route it. */
export interface EmittedEvent {
  readonly id: number
  readonly eventId: string
  readonly type: string
}

/**
 * What a listener adds to the statement writing an event, as one more CTE reading `emitted_event` (`id`,
 * `event_type`, `aggregate_id`, `seller_id`): the webhooks module inserts its deliveries there.
 */
export type EventListener = (emitted: SQL, at: Date) => SQL

/**
 * The outbox, the one way a module reports a change: an event is written by one statement in the caller's transaction
 * (a change rolled back emits nothing; one committed is never lost) — the record's sequence taken under its row in
 * `event_aggregate` (two events of one record are ordered even when their changes race), the event row, and what
 * the listeners add (deliveries) — so that a change made by a single statement can carry its event in that same
 * statement (`ctes`). Nothing domain-specific: the caller gives the record as its resource shows it.
 */
export function createOutbox(deps: { clock: Clock }) {
  const listeners: EventListener[] = []

  /** The CTEs writing an event (names prefixed `ev_`): to put in a larger statement's WITH list. */
  function ctes(event: EventSql): SQL {
    const at = deps.clock.now()
    const id = eventId(at)
    const data = event.previous
      ? sql`jsonb_build_object('object', ${event.object}, 'previous', ${event.previous})`
      : sql`jsonb_build_object('object', ${event.object})`
    const emitted = sql.raw('ev_written')
    return sql`ev_input as materialized (
        select ${event.aggregateId}::text as aggregate_id, ${event.sellerId}::bigint as seller_id, ${data} as data
        where ${event.when}
      ), ev_sequence as (
        insert into event_aggregate (aggregate_type, aggregate_id, last_sequence)
        select ${event.aggregateType}, aggregate_id, 1 from ev_input
        on conflict (aggregate_type, aggregate_id) do update set last_sequence = event_aggregate.last_sequence + 1
        returning last_sequence
      ), ev_written as (
        insert into event (event_id, event_type, occurred_at, aggregate_type, aggregate_id, sequence, data, seller_id)
        select ${id}, ${event.type}, ${at.toISOString()}::timestamptz, ${event.aggregateType}, i.aggregate_id,
          (select last_sequence from ev_sequence), i.data, i.seller_id
        from ev_input i
        returning id, event_id, event_type, aggregate_id, seller_id
      )${sql.join(
        listeners.map((listener, n) => sql`, ${sql.raw(`ev_listener_${n}`)} as (${listener(emitted, at)})`),
        sql``,
      )}`
  }

  return {
    listen(listener: EventListener): void {
      listeners.push(listener)
    },

    ctes,

    /** Writes an event in the caller's transaction (one statement). */
    async emit(tx: Db, input: EventInput): Promise<EmittedEvent> {
      const written = await one<{ id: unknown; event_id: string; event_type: string }>(
        tx,
        sql`with ${ctes({
          type: input.type,
          aggregateType: input.aggregate.type,
          aggregateId: sql`${String(input.aggregate.id)}`,
          object: sql`${JSON.stringify(input.object ?? null)}::jsonb`,
          ...(input.previous ? { previous: sql`${JSON.stringify(input.previous)}::jsonb` } : {}),
          sellerId: sql`${input.sellerId ?? null}`,
          when: sql`true`,
        })} select id, event_id, event_type from ev_written`,
      )
      return { id: Number(written!.id), eventId: written!.event_id, type: written!.event_type }
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>
