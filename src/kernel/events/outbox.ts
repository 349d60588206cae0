import { sql, type SQL } from 'drizzle-orm'
import { rows, type Db } from '../db/database.ts'
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

/** An event of a batch (`emitMany`): the type and aggregate type are the batch's. */
export type BatchEventInput = Omit<EventInput, 'type' | 'aggregate'> & {
  readonly aggregate: { readonly id: string | number }
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

  /**
   * The CTEs writing events (names prefixed `ev_`, or `prefix`) from `input`, a SELECT of (event_id, aggregate_id, seller_id,
   * data), one row per record: the records' sequences, the events, and the listeners' CTEs.
   */
  function writing(type: string, aggregateType: string, input: SQL, at: Date, prefix = 'ev'): SQL {
    const name = (part: string) => sql.raw(`${prefix}_${part}`)
    return sql`${name('input')} as materialized (${input}), ${name('sequence')} as (
        insert into event_aggregate (aggregate_type, aggregate_id, last_sequence)
        select ${aggregateType}, aggregate_id, 1 from ${name('input')}
        on conflict (aggregate_type, aggregate_id) do update set last_sequence = event_aggregate.last_sequence + 1
        returning aggregate_id, last_sequence
      ), ${name('written')} as (
        insert into event (event_id, event_type, occurred_at, aggregate_type, aggregate_id, sequence, data, seller_id)
        select i.event_id, ${type}, ${at.toISOString()}::timestamptz, ${aggregateType}, i.aggregate_id, s.last_sequence,
          i.data, i.seller_id
        from ${name('input')} i join ${name('sequence')} s on s.aggregate_id = i.aggregate_id
        returning id, event_id, event_type, aggregate_id, seller_id
      )${sql.join(
        listeners.map((listener, n) => sql`, ${name(`listener_${n}`)} as (${listener(name('written'), at)})`),
        sql``,
      )}`
  }

  /**
   * The CTEs writing one event inside a larger statement's WITH list, gated by `when`. Two events in one statement
   * need two prefixes for their CTEs' names (`ev` by default).
   */
  function ctes(event: EventSql, prefix = 'ev'): SQL {
    const at = deps.clock.now()
    const data = event.previous
      ? sql`jsonb_build_object('object', ${event.object}, 'previous', ${event.previous})`
      : sql`jsonb_build_object('object', ${event.object})`
    return writing(
      event.type,
      event.aggregateType,
      sql`select ${eventId(at)} as event_id, ${event.aggregateId}::text as aggregate_id,
        ${event.sellerId}::bigint as seller_id, ${data} as data where ${event.when}`,
      at,
      prefix,
    )
  }

  /**
   * Writes events of one type, each of another record of one aggregate type, in one statement: a batch's invoices
   * report in one round trip, not one each.
   */
  async function emitMany(
    tx: Db,
    type: string,
    aggregateType: string,
    inputs: readonly BatchEventInput[],
  ): Promise<EmittedEvent[]> {
    if (inputs.length === 0) return []
    const at = deps.clock.now()
    const records = inputs.map((input) => ({
      event_id: eventId(at),
      aggregate_id: String(input.aggregate.id),
      seller_id: input.sellerId ?? null,
      data: input.previous
        ? { object: input.object ?? null, previous: input.previous }
        : { object: input.object ?? null },
    }))
    // The sequence of a record is taken once per statement: two events of one record go in two statements.
    if (new Set(records.map((r) => r.aggregate_id)).size !== records.length)
      throw new Error(`two ${type} events of one record in one batch`)
    const input = sql`select x.event_id, x.aggregate_id, x.seller_id, x.data
      from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as x(event_id text, aggregate_id text, seller_id bigint, data jsonb)`
    const written = await rows<{ id: unknown; event_id: string }>(
      tx,
      sql`with ${writing(type, aggregateType, input, at)} select id, event_id from ev_written order by id`,
    )
    return written.map((w) => ({ id: Number(w.id), eventId: w.event_id, type }))
  }

  return {
    listen(listener: EventListener): void {
      listeners.push(listener)
    },
    ctes,
    emitMany,
    /** Writes an event in the caller's transaction (one statement). */
    async emit(tx: Db, input: EventInput): Promise<EmittedEvent> {
      const [event] = await emitMany(tx, input.type, input.aggregate.type, [input])
      return event!
    },
  }
}

export type Outbox = ReturnType<typeof createOutbox>
