import type { Caller } from '../../kernel/caller.ts'
import type { Clock } from '../../kernel/clock.ts'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Outbox } from '../../kernel/events/index.ts'
import type { Db } from '../../kernel/db/database.ts'
import { AppError, validationError } from '../../kernel/errors.ts'
import { bodyValidator } from '../../kernel/http/validation.ts'
import { CODE_PATTERN } from '../../kernel/resources/resource.model.ts'
import { cachedTenantSettings } from '../../kernel/settings.ts'
import {
  addOfferProduct,
  createOffer,
  deleteOffer,
  offerSearch as repo,
  type OfferSubscriptions,
  PORTAL_STATUS,
  removeOfferProduct,
  updateOffer,
  versionValidOn,
  type Condition,
  type OfferWrite,
  type SortKey,
} from '../catalog/index.ts'
import { dayIn } from '../ordering/index.ts'
import { answerPage, OFFERS_DIALECT, offerWriteOf, project, type Range, type RecordField } from './offers.model.ts'
import {
  BulkOperation,
  CreateOfferBody,
  UpsertOfferBody,
  type ExpandedProduct,
  type OfferFieldsBody,
  type OfferRecord,
} from './offers.schemas.ts'

export interface ReadOptions {
  readonly fields?: readonly RecordField[] | undefined
  readonly expand: { readonly products: boolean }
}

export interface PageRequest extends ReadOptions {
  readonly conditions: readonly Condition[]
  readonly sort: readonly SortKey[]
  readonly range: Range
}

export interface Page {
  /** The range asked for: the neighbouring pages keep its size. */
  readonly range: Range
  readonly status: 200 | 206
  readonly contentRange: string
  readonly total: number
  readonly returned: Range
  readonly records: OfferRecord[]
}

/** A bulk operation's outcome, as its single call would have answered. */
export type BulkOutcome = { index: number; action: string | null; code: string | null } & (
  { ok: true; status: 200 | 201 | 204; record?: OfferRecord } | { ok: false; error: unknown }
)

/**
 * How many operations of one bulk run at once: enough to overlap database round trips, few enough to leave the
 * connection pool to other requests.
 */
const BULK_PARALLELISM = 4

const validCreate = bodyValidator(CreateOfferBody)
const validUpsert = bodyValidator(UpsertOfferBody)
const validOperation = bodyValidator(BulkOperation)

const notFound = (code: string) => new AppError('OFFER_NOT_FOUND', `Offer ${code} not found`)

const recordOf = (row: repo.OfferRow): OfferRecord => ({
  code: row.code,
  name: row.name,
  description: row.description,
  status: PORTAL_STATUS[row.life_cycle_status],
  valid_from: row.valid_from,
  valid_to: row.valid_to,
  product_codes: row.offer_components.map((c) => c.code),
  category_codes: row.category_codes,
  seller_codes: row.seller_codes,
  discount_plan_codes: row.discount_plan_codes,
  auto_end_of_engagement: row.auto_end_of_engagement,
  attributes: row.attributes,
  offer_components: row.offer_components,
  offer_service_templates: row.offer_service_templates,
})

/**
 * The second offer interface: the catalog's offer rows in snake_case with portal statuses, read in ranges and
 * searched here, written through the catalog's offer rules (the ones `/api/v1/offerTemplates` uses).
 */
export function createOffersService(deps: {
  db: Db
  clock: Clock
  outbox: Outbox
  offerSubscriptions: OfferSubscriptions
}) {
  /** Each record with its products and their version in effect today (tenant time zone), when asked. */
  async function shape(db: Db, rows: repo.OfferRow[], options: ReadOptions): Promise<OfferRecord[]> {
    const records = rows.map(recordOf)
    if (options.expand.products) {
      const products = await repo.productsByCode(db, [...new Set(records.flatMap((r) => r.product_codes ?? []))])
      const today = dayIn(deps.clock.now(), (await cachedTenantSettings(db)).timeZone)
      const expanded = (code: string): ExpandedProduct => {
        const product = products.get(code)!
        const current = versionValidOn(product.versions, today)
        return {
          code: product.code,
          name: product.name,
          product_line: product.product_line,
          current_version: current
            ? { version: current.version, status: current.status, charge_codes: current.charge_codes }
            : null,
        }
      }
      for (const record of records) record.products = (record.product_codes ?? []).map(expanded)
    }
    return records.map((r) => project(r, options.fields))
  }

  async function read(db: Db, code: string, options: ReadOptions = { expand: { products: false } }) {
    const row = await repo.findOffer(db, code)
    if (!row) throw notFound(code)
    return (await shape(db, [row], options))[0]!
  }

  /** A new offer without `valid_from` is valid from the moment it is created (to the second). */
  function createWrite(body: OfferFieldsBody, code: string): OfferWrite & { code: string } {
    const write = { ...offerWriteOf(body), code }
    if (write.validFrom === undefined) {
      const now = deps.clock.now()
      write.validFrom = new Date(now.getTime() - now.getUTCMilliseconds()).toISOString()
    }
    return write
  }

  async function create(body: OfferFieldsBody & { code: string }, actor: Caller): Promise<OfferRecord> {
    const write = createWrite(body, body.code)
    return withTransaction(deps.db, async (tx) => {
      await createOffer(tx, write, actor, OFFERS_DIALECT)
      return read(tx, body.code)
    })
  }

  /**
   * Creates or changes the offer `code` (only sent fields change); `newCode` renames it. Two upserts creating one
   * code at once: the loser's insert meets the unique code, and it runs again as the update it now is.
   */
  async function upsert(
    code: string,
    body: OfferFieldsBody & { code?: string; newCode?: string },
    actor: Caller,
  ): Promise<{ created: boolean; record: OfferRecord }> {
    if (body.code !== undefined && body.code !== code) {
      throw validationError([
        { field: 'code', message: `expected the code of the path (${code}); rename with newCode` },
      ])
    }
    const target = body.newCode ?? code
    const attempt = () =>
      withTransaction(deps.db, async (tx) => {
        if (await repo.offerExists(tx, code)) {
          await updateOffer(tx, code, { ...offerWriteOf(body), code: target }, actor, OFFERS_DIALECT, deps.outbox)
          return { created: false, record: await read(tx, target) }
        }
        // The path names any existing offer; a new one takes a code of the body's rules.
        if (!new RegExp(CODE_PATTERN).test(target)) {
          throw validationError([{ field: 'code', message: `expected a code matching ${CODE_PATTERN}` }])
        }
        await createOffer(tx, createWrite(body, target), actor, OFFERS_DIALECT)
        return { created: true, record: await read(tx, target) }
      })
    try {
      return await attempt()
    } catch (error) {
      if (error instanceof AppError && error.code === 'ENTITY_ALREADY_EXISTS' && target === code) return attempt()
      throw error
    }
  }

  async function remove(code: string, actor: Caller): Promise<void> {
    await withTransaction(deps.db, (tx) => deleteOffer(tx, code, actor, OFFERS_DIALECT, deps.offerSubscriptions))
  }

  /** Runs one bulk operation as its single call would; malformed operations fail alone. */
  async function runOperation(raw: unknown, actor: Caller): Promise<{ status: 200 | 201 | 204; record?: OfferRecord }> {
    const shapeProblems = validOperation(raw)
    if (shapeProblems.length > 0) throw validationError(shapeProblems)
    const op = raw as { action: 'create' | 'upsert' | 'delete'; code?: string; body?: unknown }
    const required = (field: 'code' | 'body') => validationError([{ field, message: `is required to ${op.action}` }])
    switch (op.action) {
      case 'create': {
        if (op.body === undefined) throw required('body')
        const problems = validCreate(op.body)
        if (problems.length > 0) throw validationError(problems)
        const body = op.body as OfferFieldsBody & { code: string }
        if (op.code !== undefined && op.code !== body.code) {
          throw validationError([{ field: 'code', message: `expected the code of the body (${body.code})` }])
        }
        return { status: 201, record: await create(body, actor) }
      }
      case 'upsert': {
        if (op.code === undefined) throw required('code')
        const problems = validUpsert(op.body ?? {})
        if (problems.length > 0) throw validationError(problems)
        const result = await upsert(op.code, op.body ?? {}, actor)
        return { status: result.created ? 201 : 200, record: result.record }
      }
      case 'delete': {
        if (op.code === undefined) throw required('code')
        if (op.body !== undefined) throw validationError([{ field: 'body', message: 'a delete takes no body' }])
        await remove(op.code, actor)
        return { status: 204 }
      }
    }
  }

  return {
    get: (code: string, options: ReadOptions) => read(deps.db, code, options),

    /** A range of offers with the total, read in one snapshot so the total and the page agree. */
    page: (request: PageRequest): Promise<Page> =>
      withTransaction(
        deps.db,
        async (tx) => {
          const query = { conditions: request.conditions, timeZone: (await cachedTenantSettings(tx)).timeZone }
          const total = await repo.countOffers(tx, query)
          const answer = answerPage(request.range, total)
          if (answer.status === 416) {
            throw new AppError(
              'RANGE_NOT_SATISFIABLE',
              `Range ${request.range.first}-${request.range.last} starts past the last offer (${total} offer${total === 1 ? '' : 's'})`,
              { headers: { 'content-range': answer.contentRange } },
            )
          }
          const rows = await repo.findOffers(tx, {
            ...query,
            sort: request.sort,
            offset: answer.returned.first,
            limit: answer.returned.last - answer.returned.first + 1,
          })
          const records = await shape(tx, total === 0 ? [] : rows, request)
          return {
            range: request.range,
            status: answer.status,
            contentRange: answer.contentRange,
            total,
            returned: answer.returned,
            records,
          }
        },
        { isolation: 'repeatable read', accessMode: 'read only' },
      ),

    count: async (conditions: readonly Condition[]) =>
      repo.countOffers(deps.db, { conditions, timeZone: (await cachedTenantSettings(deps.db)).timeZone }),

    create,
    upsert,

    /** Partial update: only sent fields change; a status change follows the transition table. */
    update: (code: string, body: OfferFieldsBody, actor: Caller) =>
      withTransaction(deps.db, async (tx) => {
        await updateOffer(tx, code, offerWriteOf(body), actor, OFFERS_DIALECT, deps.outbox)
        return read(tx, code)
      }),

    remove,

    addProduct: (code: string, productCode: string, actor: Caller) =>
      withTransaction(deps.db, async (tx) => {
        await addOfferProduct(tx, code, productCode, actor, 'product_code')
        return read(tx, code)
      }),

    removeProduct: (code: string, productCode: string, actor: Caller) =>
      withTransaction(deps.db, (tx) => removeOfferProduct(tx, code, productCode, actor)),

    /**
     * Runs every operation, each in its own transaction: one failing changes nothing of the others. Operations on
     * different offers run up to BULK_PARALLELISM at a time; an operation waits for every earlier one naming one of
     * its codes (code, body code, newCode), so a create then a delete of one offer happen in that order. The
     * outcomes keep the order of the operations.
     */
    async bulk(operations: readonly unknown[], actor: Caller): Promise<BulkOutcome[]> {
      const outcomes: BulkOutcome[] = []
      const slot = limiter(BULK_PARALLELISM)
      const lastOf = new Map<string, Promise<void>>()
      const runs = operations.map((raw, index) => {
        const op = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
        const body = (typeof op.body === 'object' && op.body !== null ? op.body : {}) as Record<string, unknown>
        const action = typeof op.action === 'string' ? op.action : null
        const named = op.code ?? (action === 'create' ? body.code : undefined)
        const code = typeof named === 'string' ? named : null
        const codes = [op.code, body.code, body.newCode].filter((c): c is string => typeof c === 'string')
        const earlier = codes.flatMap((c) => lastOf.get(c) ?? [])
        const run = Promise.all(earlier).then(() =>
          slot(async () => {
            try {
              outcomes[index] = { index, action, code, ok: true, ...(await runOperation(raw, actor)) }
            } catch (error) {
              outcomes[index] = { index, action, code, ok: false, error }
            }
          }),
        )
        for (const c of codes) lastOf.set(c, run)
        return run
      })
      await Promise.all(runs)
      return outcomes
    },
  }
}

/** At most `size` tasks at once; the others wait their turn, first come first served. */
function limiter(size: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}

export type OffersService = ReturnType<typeof createOffersService>
