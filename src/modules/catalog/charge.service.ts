import { eq, sql, type SQL } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { chargeTemplates } from '../../kernel/db/schema/index.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { registry } from '../../kernel/model/index.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import type { ListQuery, ResourceService } from '../../kernel/resources/resource.service.ts'
import { chargeRules, type ChargeShape } from './charge.model.ts'

export interface ChargeInput {
  code?: string
  description?: string | null
  type?: string
  oneShotType?: string | null
  invoiceSubCategory?: string
  taxClass?: string
  billingCalendar?: string | null
  inputUnitOfMeasure?: string | null
  ratingUnitOfMeasure?: string | null
  filterParam1?: string | null
  counterTemplate?: string | null
  subscriptionProrata?: boolean
}

/** Relation fields of the body: the entity their code names, its label, and the charge column holding the id. */
const REFERENCES = {
  invoiceSubCategory: { entity: 'InvoiceSubCategory', label: 'invoice sub-category', column: 'invoiceSubCategoryId' },
  taxClass: { entity: 'TaxClass', label: 'tax class', column: 'taxClassId' },
  billingCalendar: { entity: 'Calendar', label: 'calendar', column: 'calendarId' },
  inputUnitOfMeasure: { entity: 'UnitOfMeasure', label: 'unit of measure', column: 'inputUnitOfMeasureId' },
  ratingUnitOfMeasure: { entity: 'UnitOfMeasure', label: 'unit of measure', column: 'ratingUnitOfMeasureId' },
  counterTemplate: { entity: 'CounterTemplate', label: 'counter template', column: 'counterTemplateId' },
} as const

type ReferenceField = keyof typeof REFERENCES
type ChargeColumns = Partial<typeof chargeTemplates.$inferInsert>

const CHARGE = () => registry.get('ChargeTemplate')
const ARTICLE = () => registry.get('AccountingArticle')

/** Resolves the codes the body names into ids; an unknown code is a problem naming the field and the code. */
async function resolveReferences(tx: Db, input: ChargeInput, problems: ErrorDetail[]): Promise<ChargeColumns> {
  const columns: Record<string, number | null> = {}
  for (const [field, ref] of Object.entries(REFERENCES) as [ReferenceField, (typeof REFERENCES)[ReferenceField]][]) {
    const code = input[field]
    if (code === undefined) continue
    if (code === null) {
      columns[ref.column] = null
      continue
    }
    const id = await records.idOfCode(tx, registry.get(ref.entity), code)
    if (id === undefined) problems.push({ field, message: `no ${ref.label} with code '${code}'` })
    else columns[ref.column] = id
  }
  return columns
}

/**
 * Charges: created DRAFT with their own accounting article (the charge's code, invoice sub-category and tax class),
 * ACTIVE once a pricing version is published (the pricing module does that).
 */
export function createChargeService(deps: { db: Db; records: ResourceService }) {
  async function get(code: string) {
    const found = await records.findByCode(deps.db, CHARGE(), code)
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} not found`)
    return found
  }

  return {
    get,
    list: (query: ListQuery) => deps.records.list(query),

    async create(input: ChargeInput & { code: string; type: string }, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        if ((await records.idOfCode(tx, CHARGE(), input.code)) !== undefined) {
          throw new AppError('ENTITY_ALREADY_EXISTS', `Charge ${input.code} already exists`)
        }
        const shape: ChargeShape = {
          ...input,
          oneShotType: input.type === 'ONESHOT' ? (input.oneShotType ?? 'SUBSCRIPTION') : input.oneShotType,
        }
        const problems = chargeRules(shape)
        // Checked here rather than in the schema, so one answer names every missing field, the calendar included.
        for (const field of ['invoiceSubCategory', 'taxClass'] as const) {
          if (input[field] === undefined || input[field] === null) {
            problems.push({ field, message: 'is required: the charge’s accounting article needs it' })
          }
        }
        const references = await resolveReferences(tx, input, problems)
        if (problems.length > 0) throw validationError(problems)
        if ((await records.idOfCode(tx, ARTICLE(), input.code)) !== undefined) {
          throw new AppError(
            'ENTITY_ALREADY_EXISTS',
            `Accounting article ${input.code} already exists: a charge creates its own article with the charge’s code`,
          )
        }
        const articleId = await records.insert(
          tx,
          ARTICLE(),
          new Map<string, SQL>([
            ['code', sql`${input.code}`],
            ['description', sql`${input.description ?? `Charge ${input.code}`}`],
            ['invoice_sub_category_id', sql`${references.invoiceSubCategoryId!}`],
            ['tax_class_id', sql`${references.taxClassId!}`],
            ['creator', sql`${actor}`],
          ]),
        )
        try {
          await tx.insert(chargeTemplates).values({
            code: input.code,
            description: input.description ?? null,
            type: input.type,
            oneShotType: shape.oneShotType ?? null,
            filterParam1: input.filterParam1 ?? null,
            subscriptionProrata: input.subscriptionProrata ?? false,
            ...references,
            invoiceSubCategoryId: references.invoiceSubCategoryId!,
            taxClassId: references.taxClassId!,
            accountingArticleId: articleId,
            creator: actor,
          })
        } catch (error) {
          if (pgErrorOf(error)?.code === '23505') {
            throw new AppError('ENTITY_ALREADY_EXISTS', `Charge ${input.code} already exists`)
          }
          throw error
        }
        return (await records.findByCode(tx, CHARGE(), input.code))!
      })
    },

    /** Partial update; the type cannot change. The charge's own article follows its sub-category and tax class. */
    async update(code: string, input: ChargeInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await records.lockIdOfCode(tx, CHARGE(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} not found`)
        const current = (await records.findById(tx, CHARGE(), id))!
        if (input.type !== undefined && input.type !== current.type) {
          throw validationError([
            { field: 'type', message: `the type of a charge cannot change (it is ${current.type as string})` },
          ])
        }
        const merged = { ...current, ...input, type: current.type as string } as ChargeShape
        const problems = chargeRules(merged)
        const references = await resolveReferences(tx, input, problems)
        if (problems.length > 0) throw validationError(problems)
        const changes: ChargeColumns = { ...references }
        if (input.description !== undefined) changes.description = input.description
        if (input.oneShotType !== undefined) {
          changes.oneShotType = current.type === 'ONESHOT' ? (input.oneShotType ?? 'SUBSCRIPTION') : null
        }
        if (input.filterParam1 !== undefined) changes.filterParam1 = input.filterParam1
        if (input.subscriptionProrata !== undefined) changes.subscriptionProrata = input.subscriptionProrata
        await tx
          .update(chargeTemplates)
          .set({ ...changes, updated: sql`now()`, updater: actor })
          .where(eq(chargeTemplates.id, id))
        if (current.accountingArticle === code) {
          const article = new Map<string, SQL>()
          if (references.invoiceSubCategoryId)
            article.set('invoice_sub_category_id', sql`${references.invoiceSubCategoryId}`)
          if (references.taxClassId) article.set('tax_class_id', sql`${references.taxClassId}`)
          if (article.size > 0) {
            article.set('updated', sql`now()`)
            article.set('updater', sql`${actor}`)
            const articleId = await records.idOfCode(tx, ARTICLE(), code)
            if (articleId !== undefined) await records.update(tx, ARTICLE(), articleId, article)
          }
        }
        return (await records.findById(tx, CHARGE(), id))!
      })
    },

    /** Deletes a charge no product or service uses, with its pricing versions and (when unused) its own article. */
    async delete(code: string) {
      await withTransaction(deps.db, async (tx) => {
        const id = await records.lockIdOfCode(tx, CHARGE(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Charge ${code} not found`)
        const current = (await records.findById(tx, CHARGE(), id))!
        try {
          await tx.delete(chargeTemplates).where(eq(chargeTemplates.id, id))
        } catch (error) {
          if (pgErrorOf(error)?.code === '23503') {
            throw new AppError('ENTITY_IN_USE', `Charge ${code} is still used by a product version or a service`)
          }
          throw error
        }
        if (current.accountingArticle === code) {
          const articleId = await records.idOfCode(tx, ARTICLE(), code)
          // A savepoint: an article other records still use is kept, the charge is deleted anyway.
          if (articleId !== undefined) {
            await tx
              .transaction(async (savepoint) => {
                await records.remove(savepoint, ARTICLE(), articleId)
              })
              .catch((error: unknown) => {
                if (pgErrorOf(error)?.code !== '23503') throw error
              })
          }
        }
      })
    },

    /** The accounting articles of a charge (its own one). */
    async articles(code: string) {
      const charge = await get(code)
      const article = await records.findByCode(deps.db, ARTICLE(), charge.accountingArticle as string)
      return article ? [article] : []
    },
  }
}

export type ChargeService = ReturnType<typeof createChargeService>
