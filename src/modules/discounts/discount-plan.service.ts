import { and, asc, count, eq, sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { accountingArticles, discountPlanItems, discountPlans } from '../../kernel/db/schema/index.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import type { ListQuery, ResourceService } from '../../kernel/resources/resource.service.ts'
import { auditable, decimalWire, readDecimal } from '../pricing/index.ts'
import { USABLE_PLAN_STATUSES } from './discount-plan-usage.ts'

export interface ItemInput {
  code?: string
  description?: string | null
  discountPlanItemType?: 'PERCENTAGE' | 'FIXED'
  discountValue?: number | string
  accountingArticle?: string | null
  sequence?: number
}

const PLAN = () => registry.get('DiscountPlan')
/** Items of plans in these statuses can still change. */
const EDITABLE = new Set(['DRAFT', 'ACTIVE'])

/** The item columns read back (the article as its code). */
const itemColumns = {
  id: discountPlanItems.id,
  discountPlanId: discountPlanItems.discountPlanId,
  code: discountPlanItems.code,
  description: discountPlanItems.description,
  discountPlanItemType: discountPlanItems.discountPlanItemType,
  discountValue: discountPlanItems.discountValue,
  accountingArticleId: discountPlanItems.accountingArticleId,
  sequence: discountPlanItems.sequence,
  created: discountPlanItems.created,
  updated: discountPlanItems.updated,
  creator: discountPlanItems.creator,
  updater: discountPlanItems.updater,
}

type ItemRow = typeof discountPlanItems.$inferSelect & { accountingArticleCode: string | null }

function itemWire(planCode: string, row: ItemRow) {
  return {
    id: row.id,
    code: row.code,
    description: row.description,
    discountPlanCode: planCode,
    discountPlanItemType: row.discountPlanItemType,
    discountValue: decimalWire(row.discountValue),
    accountingArticle: row.accountingArticleCode,
    sequence: row.sequence,
    auditable: auditable(row),
  }
}

/** A PERCENTAGE is more than 0 and at most 100; a FIXED amount is more than 0. */
function readValue(type: string, value: number | string, problems: ErrorDetail[]) {
  return readDecimal(value, 'discountValue', problems, {
    minExclusive: 0,
    ...(type === 'PERCENTAGE' ? { max: 100 } : {}),
  })
}

/**
 * Discount plans: DRAFT → ACTIVE (activate, needs an item) → IN_USE (first order using it, set by ordering) →
 * EXPIRED. Items (PERCENTAGE or FIXED, with the accounting article their discount lines use) change while the plan is
 * DRAFT or ACTIVE.
 */
export function createDiscountPlanService(deps: { db: Db; records: ResourceService }) {
  async function lockPlan(tx: Db, code: string): Promise<records.WireRecord> {
    const id = await records.lockIdOfCode(tx, PLAN(), code)
    if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Discount plan ${code} not found`)
    return (await records.findById(tx, PLAN(), id))!
  }

  async function items(db: Db, planId: number, itemCode?: string): Promise<ItemRow[]> {
    return db
      .select({ ...itemColumns, accountingArticleCode: accountingArticles.code })
      .from(discountPlanItems)
      .leftJoin(accountingArticles, eq(accountingArticles.id, discountPlanItems.accountingArticleId))
      .where(
        itemCode === undefined
          ? eq(discountPlanItems.discountPlanId, planId)
          : and(eq(discountPlanItems.discountPlanId, planId), eq(discountPlanItems.code, itemCode)),
      )
      .orderBy(asc(discountPlanItems.sequence), asc(discountPlanItems.id))
  }

  async function item(db: Db, plan: records.WireRecord, itemCode: string): Promise<ItemRow> {
    const found = (await items(db, plan.id as number, itemCode))[0]
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `Discount plan ${plan.code as string} has no item ${itemCode}`)
    return found
  }

  function editable(plan: records.WireRecord): void {
    if (!EDITABLE.has(plan.status as string)) {
      throw new AppError(
        'INVALID_STATE',
        `Discount plan ${plan.code as string} is ${plan.status as string}: its items can no longer change`,
      )
    }
  }

  async function articleId(tx: Db, code: string | null | undefined, problems: ErrorDetail[]) {
    if (code === undefined || code === null) return code
    const id = await records.idOfCode(tx, registry.get('AccountingArticle'), code)
    if (id === undefined)
      problems.push({ field: 'accountingArticle', message: `no accounting article with code '${code}'` })
    return id ?? null
  }

  return {
    get: (code: string) => deps.records.get(code),
    /** `usable`: true, only the plans an order may apply now (ACTIVE or IN_USE); false, only the others. */
    list: ({ usable, ...query }: ListQuery & { usable?: boolean }) =>
      deps.records.list(
        query,
        undefined,
        usable === undefined ? undefined : { field: 'status', values: USABLE_PLAN_STATUSES, negate: !usable },
      ),
    create: (body: Record<string, unknown>, actor: string) => deps.records.create(body, { username: actor }),
    update: (code: string, body: Record<string, unknown>, actor: string) =>
      deps.records.update(code, body, { username: actor }),

    /** Creates the plan (201) or updates it (200): the body's code, when sent, must be the path's. */
    async upsert(code: string, body: Record<string, unknown>, actor: string) {
      if (body.code !== undefined && body.code !== code) {
        throw validationError([{ field: 'code', message: `expected ${code}, the code of the path` }])
      }
      const { code: _code, ...fields } = body
      const exists = (await records.idOfCode(deps.db, PLAN(), code)) !== undefined
      if (exists) return { created: false, plan: await deps.records.update(code, fields, { username: actor }) }
      try {
        return { created: true, plan: await deps.records.create({ ...fields, code }, { username: actor }) }
      } catch (error) {
        // A concurrent upsert created it first: this one updates.
        if (error instanceof AppError && error.code === 'ENTITY_ALREADY_EXISTS') {
          return { created: false, plan: await deps.records.update(code, fields, { username: actor }) }
        }
        throw error
      }
    },

    /** A plan used by orders (IN_USE, EXPIRED) cannot be deleted; one linked to products or offers is still referenced (409). */
    async delete(code: string) {
      try {
        // Check and delete under the same lock: an order taking the plan meanwhile waits, then finds it gone.
        await withTransaction(deps.db, async (tx) => {
          const plan = await lockPlan(tx, code)
          if (plan.status === 'IN_USE' || plan.status === 'EXPIRED') {
            throw new AppError('ENTITY_IN_USE', `Discount plan ${code} is ${plan.status as string}: orders use it`)
          }
          await tx.delete(discountPlanItems).where(eq(discountPlanItems.discountPlanId, Number(plan.id)))
          await records.remove(tx, PLAN(), Number(plan.id))
        })
      } catch (error) {
        if (pgErrorOf(error)?.code === '23503') {
          throw new AppError('ENTITY_IN_USE', `Discount plan ${code} is still linked to products, offers or orders`)
        }
        throw error
      }
    },

    /** DRAFT → ACTIVE once the plan has an item; activating an ACTIVE plan changes nothing. */
    async activate(code: string, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const plan = await lockPlan(tx, code)
        if (plan.status === 'ACTIVE') return plan
        if (plan.status !== 'DRAFT') {
          throw new AppError(
            'INVALID_STATE',
            `Discount plan ${code} is ${plan.status as string}: only a DRAFT plan can be activated`,
          )
        }
        const found = await tx
          .select({ n: count() })
          .from(discountPlanItems)
          .where(eq(discountPlanItems.discountPlanId, plan.id as number))
        if ((found[0]?.n ?? 0) === 0) {
          throw new AppError('INVALID_STATE', `Discount plan ${code} has no item: add one before activating it`)
        }
        await tx
          .update(discountPlans)
          .set({ status: 'ACTIVE', statusDate: sql`now()`, updated: sql`now()`, updater: actor })
          .where(eq(discountPlans.id, plan.id as number))
        return (await records.findById(tx, PLAN(), plan.id as number))!
      })
    },

    async listItems(code: string) {
      const plan = await deps.records.get(code)
      return { discountPlanCode: code, items: (await items(deps.db, plan.id as number)).map((r) => itemWire(code, r)) }
    },

    async getItem(code: string, itemCode: string) {
      const plan = await deps.records.get(code)
      return itemWire(code, await item(deps.db, plan, itemCode))
    },

    async createItem(
      code: string,
      input: ItemInput & Required<Pick<ItemInput, 'code' | 'discountPlanItemType' | 'discountValue'>>,
      actor: string,
    ) {
      return withTransaction(deps.db, async (tx) => {
        const plan = await lockPlan(tx, code)
        editable(plan)
        if ((await items(tx, plan.id as number, input.code)).length > 0) {
          throw new AppError('ENTITY_ALREADY_EXISTS', `Discount plan ${code} already has an item ${input.code}`)
        }
        const problems: ErrorDetail[] = []
        const value = readValue(input.discountPlanItemType, input.discountValue, problems)
        const article = await articleId(tx, input.accountingArticle, problems)
        if (problems.length > 0) throw validationError(problems)
        const existing = await items(tx, plan.id as number)
        try {
          await tx.insert(discountPlanItems).values({
            discountPlanId: plan.id as number,
            code: input.code,
            description: input.description ?? null,
            discountPlanItemType: input.discountPlanItemType,
            discountValue: value!.toFixed(),
            accountingArticleId: article ?? null,
            sequence: input.sequence ?? existing.length,
            creator: actor,
          })
        } catch (error) {
          if (pgErrorOf(error)?.code === '23505') {
            throw new AppError('ENTITY_ALREADY_EXISTS', `Discount plan ${code} already has an item ${input.code}`)
          }
          throw error
        }
        return itemWire(code, await item(tx, plan, input.code))
      })
    },

    /** Partial update of an item; type and value are checked together. */
    async updateItem(code: string, itemCode: string, input: ItemInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const plan = await lockPlan(tx, code)
        const current = await item(tx, plan, itemCode)
        editable(plan)
        if (input.code !== undefined && input.code !== itemCode) {
          throw validationError([{ field: 'code', message: `expected ${itemCode}, the item code of the path` }])
        }
        const problems: ErrorDetail[] = []
        const type = input.discountPlanItemType ?? current.discountPlanItemType
        const value = readValue(type, input.discountValue ?? current.discountValue, problems)
        const article = await articleId(tx, input.accountingArticle, problems)
        if (problems.length > 0) throw validationError(problems)
        const values: Partial<typeof discountPlanItems.$inferInsert> = {
          discountPlanItemType: type,
          discountValue: value!.toFixed(),
        }
        if (input.description !== undefined) values.description = input.description
        if (article !== undefined) values.accountingArticleId = article
        if (input.sequence !== undefined) values.sequence = input.sequence
        await tx
          .update(discountPlanItems)
          .set({ ...values, updated: sql`now()`, updater: actor })
          .where(eq(discountPlanItems.id, current.id))
        return itemWire(code, await item(tx, plan, itemCode))
      })
    },

    /** An ACTIVE plan keeps at least one item. */
    async deleteItem(code: string, itemCode: string) {
      await withTransaction(deps.db, async (tx) => {
        const plan = await lockPlan(tx, code)
        const current = await item(tx, plan, itemCode)
        editable(plan)
        if (plan.status === 'ACTIVE' && (await items(tx, plan.id as number)).length === 1) {
          throw new AppError('INVALID_STATE', `Discount plan ${code} is ACTIVE and ${itemCode} is its last item`)
        }
        await tx.delete(discountPlanItems).where(eq(discountPlanItems.id, current.id))
      })
    },
  }
}

export type DiscountPlanService = ReturnType<typeof createDiscountPlanService>
