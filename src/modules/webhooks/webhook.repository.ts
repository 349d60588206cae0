import { sql, type SQL } from 'drizzle-orm'
import { one, rows, type Db } from '../../kernel/db/database.ts'
import { parseDatabaseJson } from '../../kernel/decimal-json.ts'
import { instantText, nullableTextArray, textArray } from '../../kernel/model/json.ts'
import type { Page } from '../../kernel/http/pagination.ts'
import type { SellerCodes } from '../../kernel/model/row-security.ts'
import { sellerAmong, sellerLeftJoin } from '../accounts/index.ts'

const iso = instantText
const num = (value: unknown) => Number(value)

export interface EndpointRow {
  readonly id: number
  readonly url: string
  readonly description: string | null
  readonly eventTypes: string[]
  readonly active: boolean
  readonly sellerCodes: string[] | null
  readonly disabledReason: string | null
  readonly failingSince: string | null
  readonly createdAt: string
}

const endpointColumns = sql`e.id, e.url, e.description, e.event_types as "eventTypes", e.active,
  e.seller_codes as "sellerCodes", e.disabled_reason as "disabledReason", ${iso(sql`e.failing_since`)} as "failingSince",
  ${iso(sql`e.created`)} as "createdAt"`

const endpointOf = (r: Omit<EndpointRow, 'id'> & { id: unknown }): EndpointRow => ({ ...r, id: num(r.id) })

/**
 * The endpoints a caller may see: all for an unrestricted caller; for a seller-restricted one, those receiving only
 * events of its own sellers (an endpoint takes its creator's restriction).
 */
function visible(sellerCodes: SellerCodes): SQL {
  return sellerCodes === null
    ? sql`true`
    : sql`e.seller_codes is not null and e.seller_codes <@ ${textArray([...sellerCodes])}`
}

export async function listEndpoints(db: Db, sellerCodes: SellerCodes): Promise<EndpointRow[]> {
  const found = await rows<Omit<EndpointRow, 'id'> & { id: unknown }>(
    db,
    sql`select ${endpointColumns} from webhook_endpoint e where ${visible(sellerCodes)} order by e.id`,
  )
  return found.map(endpointOf)
}

export async function findEndpoint(
  db: Db,
  id: number,
  sellerCodes: SellerCodes,
  lock = false,
): Promise<EndpointRow | undefined> {
  const found = await one<Omit<EndpointRow, 'id'> & { id: unknown }>(
    db,
    sql`select ${endpointColumns} from webhook_endpoint e where e.id = ${id} and ${visible(sellerCodes)}
      ${lock ? sql`for update` : sql``}`,
  )
  return found && endpointOf(found)
}

export async function insertEndpoint(
  db: Db,
  values: { url: string; description: string | null; eventTypes: string[]; sellerCodes: SellerCodes },
  actor: string,
): Promise<number> {
  const inserted = await one<{ id: unknown }>(
    db,
    sql`insert into webhook_endpoint (url, description, event_types, seller_codes, creator)
      values (${values.url}, ${values.description}, ${textArray(values.eventTypes)},
        ${values.sellerCodes === null ? null : textArray([...values.sellerCodes])}, ${actor})
      returning id`,
  )
  return num(inserted!.id)
}

export async function updateEndpoint(
  db: Db,
  id: number,
  values: { url: string; description: string | null; eventTypes: string[]; active: boolean },
  actor: string,
): Promise<void> {
  await db.execute(sql`update webhook_endpoint set url = ${values.url}, description = ${values.description},
      event_types = ${textArray(values.eventTypes)}, active = ${values.active},
      disabled_reason = case when ${values.active} then null else disabled_reason end,
      failing_since = case when ${values.active} and not active then null else failing_since end,
      updated = now(), updater = ${actor}
    where id = ${id}`)
}

export async function deleteEndpoint(db: Db, id: number): Promise<void> {
  await db.execute(sql`delete from webhook_endpoint where id = ${id}`)
}

/** Adds a secret; `retireOthersAt`: the current ones stop signing then (a rotation keeps the old one 24 hours). */
export async function addSecret(
  db: Db,
  endpointId: number,
  secret: string,
  retireOthersAt: Date | null,
): Promise<void> {
  if (retireOthersAt) {
    await db.execute(sql`update obol_secrets.webhook_secret set expires_at = ${retireOthersAt.toISOString()}::timestamptz
      where endpoint_id = ${endpointId} and (expires_at is null or expires_at > ${retireOthersAt.toISOString()}::timestamptz)`)
  }
  await db.execute(sql`insert into obol_secrets.webhook_secret (endpoint_id, secret) values (${endpointId}, ${secret})`)
}

/** The secrets that sign now (the newest first), by endpoint. */
export async function signingSecrets(
  db: Db,
  endpointIds: readonly number[],
  now: Date,
): Promise<Map<number, string[]>> {
  if (endpointIds.length === 0) return new Map()
  const found = await rows<{ endpoint_id: unknown; secret: string }>(
    db,
    sql`select endpoint_id, secret from obol_secrets.webhook_secret
      where endpoint_id = any(${textArray(endpointIds.map(String))}::bigint[])
        and (expires_at is null or expires_at > ${now.toISOString()}::timestamptz)
      order by endpoint_id, created_at desc, id desc`,
  )
  const secrets = new Map<number, string[]>()
  for (const row of found) {
    const list = secrets.get(num(row.endpoint_id)) ?? []
    list.push(row.secret)
    secrets.set(num(row.endpoint_id), list)
  }
  return secrets
}

/**
 * The deliveries of a new event (`emitted`: the outbox's CTE of the event written), in the emitting statement: one
 * per active endpoint subscribed to its type (`*`: all) that may receive its seller's events; a test event to its
 * endpoint alone, subscribed or not; an endpoint's disabling to the others.
 */
export function fanOutSql(emitted: SQL, at: Date): SQL {
  // The event's seller joined once, not looked up per endpoint: the plan's cost stays that of a small join (a
  // correlated lookup per event and endpoint pair made PostgreSQL compile the statement with JIT every time).
  const seller = sellerLeftJoin(sql`w.seller_id`)
  return sql`insert into webhook_delivery (event_id, endpoint_id, status, next_attempt_at)
    select w.id, e.id, 'PENDING', ${at.toISOString()}::timestamptz
    from ${emitted} w ${seller.join} join webhook_endpoint e
      on (w.event_type = 'webhook.test' and e.id::text = w.aggregate_id)
      or (w.event_type <> 'webhook.test' and e.active
        and (w.event_type = any(e.event_types) or '*' = any(e.event_types))
        and (w.event_type <> 'webhook_endpoint.disabled' or e.id::text <> w.aggregate_id)
        and (e.seller_codes is null or ${seller.code} = any(e.seller_codes)))
    returning 1`
}

/** What an attempt sends: the delivery, its endpoint's URL, and the event as its body. */
export interface DueDelivery {
  readonly id: number
  readonly endpointId: number
  readonly url: string
  readonly attempts: number
  readonly eventId: string
  readonly body: string
}

/**
 * Claims due deliveries (PENDING or RETRYING, due by `now`, not leased) for `leaseMs` for `holder` (an instance
 * id), at most `limit`, oldest due first: `for update skip locked`, so instances claiming at once take different ones;
 * the lease then holds them without a transaction while the requests run. A lease ends when it runs out or when its
 * holder has not heartbeaten for `staleAfterMs` (on the database's clock, as every instance's death is judged): a dead
 * instance's deliveries are sent again, with the same ids (at least once). The attempt count rises with the claim.
 */
export async function claimDue(
  db: Db,
  now: Date,
  lease: { ms: number; holder: string; staleAfterMs: number },
  limit: number,
): Promise<DueDelivery[]> {
  const found = await rows<{
    id: unknown
    endpoint_id: unknown
    url: string
    attempts: number
    event_id: string
    body: string
  }>(
    db,
    sql`with due as (
        select d.id from webhook_delivery d
        where d.status in ('PENDING', 'RETRYING') and d.next_attempt_at <= ${now.toISOString()}::timestamptz
          and (d.lease_until is null or d.lease_until <= ${now.toISOString()}::timestamptz
            or not exists (select 1 from app_instance a where a.id = d.leased_by and a.stopped_at is null
              and a.heartbeat_at > now() - make_interval(secs => ${lease.staleAfterMs / 1000})))
        order by d.next_attempt_at, d.id limit ${limit} for update skip locked
      ), claimed as (
        update webhook_delivery d set attempts = d.attempts + 1,
          lease_until = ${new Date(now.getTime() + lease.ms).toISOString()}::timestamptz, leased_by = ${lease.holder}
        from due where d.id = due.id returning d.id, d.endpoint_id, d.event_id as event_row, d.attempts
      )
      select c.id, c.endpoint_id, e.url, c.attempts, ev.event_id, ${eventBody} as body
      from claimed c join webhook_endpoint e on e.id = c.endpoint_id join event ev on ev.id = c.event_row
      order by c.id`,
  )
  return found.map((r) => ({
    id: num(r.id),
    endpointId: num(r.endpoint_id),
    url: r.url,
    attempts: r.attempts,
    eventId: r.event_id,
    body: r.body,
  }))
}

/** An event as delivered and read (§2.7): its public id, type, time, data and aggregate with its sequence. */
export const eventBody = sql`jsonb_build_object('id', ev.event_id, 'type', ev.event_type,
  'occurredAt', ${iso(sql`ev.occurred_at`)}, 'data', ev.data,
  'aggregate', jsonb_build_object('type', ev.aggregate_type, 'id', ev.aggregate_id, 'sequence', ev.sequence))::text`

/**
 * Records an attempt and what it led to, releasing the lease, and keeps the endpoint's failure streak (a success ends
 * it, a failure starts it when none runs), in one statement: answers since when the endpoint has been failing (null
 * when it is not). The endpoint's row is written only when the streak starts or ends, so the attempts of one endpoint
 * never queue on its row lock.
 */
export async function recordAttempt(
  db: Db,
  delivery: { id: number; endpointId: number },
  attempt: {
    at: Date
    durationMs: number
    statusCode: number | null
    error: string | null
    responseBody: string | null
  },
  outcome: { status: 'SUCCEEDED' | 'FAILED' | 'RETRYING'; nextAttemptAt: Date | null },
): Promise<Date | null> {
  const success = outcome.status === 'SUCCEEDED'
  const at = sql`${attempt.at.toISOString()}::timestamptz`
  const found = await one<{ since: string | null }>(
    db,
    sql`with logged as (
        insert into webhook_attempt (delivery_id, attempted_at, duration_ms, status_code, error, response_body)
        values (${delivery.id}, ${at}, ${attempt.durationMs}, ${attempt.statusCode}, ${attempt.error},
          ${attempt.responseBody})
      ), delivered as (
        update webhook_delivery set status = ${outcome.status},
          next_attempt_at = ${outcome.nextAttemptAt?.toISOString() ?? null}::timestamptz, lease_until = null, leased_by = null,
          last_status_code = ${attempt.statusCode}, last_error = ${attempt.error}
        where id = ${delivery.id}
      ), streak as (
        update webhook_endpoint set failing_since = ${success ? sql`null` : at}
        where id = ${delivery.endpointId} and failing_since is ${success ? sql`not null` : sql`null`}
        returning failing_since
      )
      select ${
        success
          ? sql`null::text`
          : sql`${iso(sql`coalesce((select failing_since from streak),
              (select failing_since from webhook_endpoint where id = ${delivery.endpointId}))`)}`
      } as since`,
  )
  return found?.since ? new Date(found.since) : null
}

/** Disables an endpoint with its reason; false when it was already disabled (or gone). */
export async function disableEndpoint(db: Db, endpointId: number, reason: string): Promise<boolean> {
  const changed = await rows(
    db,
    sql`update webhook_endpoint set active = false, disabled_reason = ${reason}, updated = now(), updater = 'webhooks'
      where id = ${endpointId} and active returning id`,
  )
  return changed.length > 0
}

export interface DeliveryFilter {
  readonly endpointId: number
  readonly status?: string
}

/** An endpoint's deliveries, newest first, each with its attempt log. */
export async function listDeliveries(db: Db, filter: DeliveryFilter, page: Page) {
  const where = sql`d.endpoint_id = ${filter.endpointId}${filter.status === undefined ? sql`` : sql` and d.status = ${filter.status}`}`
  const total = await one<{ n: number }>(db, sql`select count(*)::int as n from webhook_delivery d where ${where}`)
  const found = await rows<{ j: string }>(
    db,
    sql`select (${deliveryJson})::text as j from webhook_delivery d join event ev on ev.id = d.event_id
      where ${where} order by d.id desc limit ${page.limit} offset ${page.offset}`,
  )
  return { total: total?.n ?? 0, data: found.map((r) => parseDatabaseJson(r.j)) }
}

export async function findDelivery(db: Db, id: number): Promise<{ endpointId: number; json: unknown } | undefined> {
  const found = await one<{ endpoint_id: unknown; j: string }>(
    db,
    sql`select d.endpoint_id, (${deliveryJson})::text as j from webhook_delivery d join event ev on ev.id = d.event_id
      where d.id = ${id}`,
  )
  return found && { endpointId: num(found.endpoint_id), json: parseDatabaseJson(found.j) }
}

const deliveryJson = sql`jsonb_build_object('id', d.id, 'event', ev.event_id, 'eventType', ev.event_type,
  'endpoint', d.endpoint_id, 'status', d.status, 'attempts', d.attempts,
  'nextAttemptAt', ${iso(sql`d.next_attempt_at`)}, 'lastStatusCode', d.last_status_code, 'lastError', d.last_error,
  'created', ${iso(sql`d.created`)},
  'attemptLog', (select coalesce(jsonb_agg(jsonb_build_object('at', ${iso(sql`a.attempted_at`)},
      'durationMs', a.duration_ms, 'statusCode', a.status_code, 'error', a.error, 'response', a.response_body)
      order by a.id), '[]'::jsonb) from webhook_attempt a where a.delivery_id = d.id))`

/** Makes a delivery due now (a person's retry), whatever its status; false when unknown. */
export async function retryNow(db: Db, id: number, now: Date): Promise<boolean> {
  const changed = await rows(
    db,
    sql`update webhook_delivery set status = case when status = 'SUCCEEDED' then status else 'RETRYING' end,
        next_attempt_at = ${now.toISOString()}::timestamptz, lease_until = null, leased_by = null
      where id = ${id} returning id`,
  )
  return changed.length > 0
}

/** New deliveries of the events of a time range (and types) to one endpoint: a replay sends the same event ids. */
export async function replay(
  db: Db,
  endpoint: EndpointRow,
  range: { since: Date; until: Date; eventTypes: string[] | null },
  now: Date,
): Promise<number> {
  const created = await rows(
    db,
    sql`insert into webhook_delivery (event_id, endpoint_id, status, next_attempt_at)
      select ev.id, ${endpoint.id}, 'PENDING', ${now.toISOString()}::timestamptz from event ev
      where ev.occurred_at >= ${range.since.toISOString()}::timestamptz
        and ev.occurred_at < ${range.until.toISOString()}::timestamptz
        and ${range.eventTypes === null ? sql`true` : sql`ev.event_type = any(${nullableTextArray(range.eventTypes)})`}
        and ev.event_type <> 'webhook.test'
        and (${endpoint.sellerCodes === null}
          or ${sellerAmong(sql`ev.seller_id`, endpoint.sellerCodes ?? [])})
      returning id`,
  )
  return created.length
}

export interface EventFilter {
  readonly type?: string
  readonly since?: Date
  readonly until?: Date
  readonly aggregateType?: string
  readonly aggregateId?: string
}

/** Events newest first, under seller row security (an event of another seller's record does not exist). */
export async function listEvents(db: Db, filter: EventFilter, sellerCodes: SellerCodes, page: Page) {
  const conditions: SQL[] = [sql`true`]
  if (filter.type !== undefined) conditions.push(sql`ev.event_type = ${filter.type}`)
  if (filter.since !== undefined) conditions.push(sql`ev.occurred_at >= ${filter.since.toISOString()}::timestamptz`)
  if (filter.until !== undefined) conditions.push(sql`ev.occurred_at < ${filter.until.toISOString()}::timestamptz`)
  if (filter.aggregateType !== undefined) conditions.push(sql`ev.aggregate_type = ${filter.aggregateType}`)
  if (filter.aggregateId !== undefined) conditions.push(sql`ev.aggregate_id = ${filter.aggregateId}`)
  if (sellerCodes !== null) conditions.push(sellerAmong(sql`ev.seller_id`, sellerCodes))
  const where = sql.join(conditions, sql` and `)
  const total = await one<{ n: number }>(db, sql`select count(*)::int as n from event ev where ${where}`)
  const found = await rows<{ body: string }>(
    db,
    sql`select ${eventBody} as body from event ev where ${where}
      order by ev.occurred_at desc, ev.id desc limit ${page.limit} offset ${page.offset}`,
  )
  return { total: total?.n ?? 0, data: found.map((r) => parseDatabaseJson(r.body)) }
}

export async function findEvent(db: Db, eventId: string, sellerCodes: SellerCodes): Promise<unknown> {
  const restricted = sellerCodes === null ? sql`` : sql`and ${sellerAmong(sql`ev.seller_id`, sellerCodes)}`
  const found = await one<{ body: string }>(
    db,
    sql`select ${eventBody} as body from event ev where ev.event_id = ${eventId} ${restricted}`,
  )
  return found && parseDatabaseJson(found.body)
}

/** Deletes events older than `before` (their deliveries and attempts with them): events are kept 30 days. */
export async function purgeEvents(db: Db, before: Date, limit: number): Promise<number> {
  const deleted = await rows(
    db,
    sql`delete from event where id in (select id from event where occurred_at < ${before.toISOString()}::timestamptz
      order by id limit ${limit}) returning id`,
  )
  return deleted.length
}
