import { asc, eq, inArray, sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import type { Db } from '../../kernel/db/database.ts'
import { chargeTemplates, serviceChargeTemplates, serviceTemplates } from '../../kernel/db/schema/index.ts'
import { AppError, validationError, type ErrorDetail } from '../../kernel/errors.ts'
import { pgErrorOf } from '../../kernel/db/database-errors.ts'
import { registry } from '../../kernel/model/index.ts'
import * as records from '../../kernel/resources/resource.repository.ts'
import type { ListQuery, ResourceService } from '../../kernel/resources/resource.service.ts'

export interface ServiceTemplateInput {
  code?: string
  description?: string | null
  name?: string | null
  charges?: string[]
}

const SERVICE = () => registry.get('ServiceTemplate')

async function chargeCodes(db: Db, serviceIds: readonly number[]): Promise<Map<number, string[]>> {
  const result = new Map(serviceIds.map((id) => [id, [] as string[]]))
  if (serviceIds.length === 0) return result
  const rows = await db
    .select({ serviceId: serviceChargeTemplates.serviceTemplateId, code: chargeTemplates.code })
    .from(serviceChargeTemplates)
    .innerJoin(chargeTemplates, eq(chargeTemplates.id, serviceChargeTemplates.chargeId))
    .where(inArray(serviceChargeTemplates.serviceTemplateId, [...serviceIds]))
    .orderBy(asc(serviceChargeTemplates.id))
  for (const row of rows) result.get(row.serviceId)!.push(row.code)
  return result
}

/** Legacy model: services group charges; offers link them as offer service templates. */
export function createServiceTemplateService(deps: { db: Db; records: ResourceService }) {
  async function get(db: Db, code: string) {
    const record = await records.findByCode(db, SERVICE(), code)
    if (!record) throw new AppError('ENTITY_NOT_FOUND', `Service template ${code} not found`)
    return { ...record, charges: (await chargeCodes(db, [record.id as number])).get(record.id as number)! }
  }

  async function replaceCharges(tx: Db, serviceId: number, codes: readonly string[]) {
    const problems: ErrorDetail[] = []
    const ids: number[] = []
    for (const [i, code] of codes.entries()) {
      const id = await records.idOfCode(tx, registry.get('ChargeTemplate'), code)
      if (id === undefined) problems.push({ field: `charges[${i}]`, message: `no charge with code '${code}'` })
      else ids.push(id)
    }
    if (problems.length > 0) throw validationError(problems)
    await tx.delete(serviceChargeTemplates).where(eq(serviceChargeTemplates.serviceTemplateId, serviceId))
    if (ids.length > 0) {
      await tx
        .insert(serviceChargeTemplates)
        .values(ids.map((chargeId) => ({ serviceTemplateId: serviceId, chargeId })))
    }
  }

  return {
    get: (code: string) => get(deps.db, code),

    async list(query: ListQuery) {
      const page = await deps.records.list(query)
      const charges = await chargeCodes(
        deps.db,
        page.data.map((r) => r.id as number),
      )
      return { ...page, data: page.data.map((r) => ({ ...r, charges: charges.get(r.id as number) ?? [] })) }
    },

    async create(input: ServiceTemplateInput & { code: string }, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        if ((await records.idOfCode(tx, SERVICE(), input.code)) !== undefined) {
          throw new AppError('ENTITY_ALREADY_EXISTS', `Service template ${input.code} already exists`)
        }
        const inserted = await tx
          .insert(serviceTemplates)
          .values({
            code: input.code,
            description: input.description ?? null,
            name: input.name ?? null,
            creator: actor,
          })
          .returning({ id: serviceTemplates.id })
        await replaceCharges(tx, inserted[0]!.id, input.charges ?? [])
        return get(tx, input.code)
      })
    },

    /** Partial update; `charges` replaces the set. */
    async update(code: string, input: ServiceTemplateInput, actor: string) {
      return withTransaction(deps.db, async (tx) => {
        const id = await records.lockIdOfCode(tx, SERVICE(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Service template ${code} not found`)
        const values: Partial<typeof serviceTemplates.$inferInsert> = {}
        if (input.description !== undefined) values.description = input.description
        if (input.name !== undefined) values.name = input.name
        await tx
          .update(serviceTemplates)
          .set({ ...values, updated: sql`now()`, updater: actor })
          .where(eq(serviceTemplates.id, id))
        if (input.charges) await replaceCharges(tx, id, input.charges)
        return get(tx, code)
      })
    },

    /** Deletes a service no offer uses (409 otherwise). */
    async delete(code: string) {
      await withTransaction(deps.db, async (tx) => {
        const id = await records.lockIdOfCode(tx, SERVICE(), code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `Service template ${code} not found`)
        try {
          await tx.delete(serviceTemplates).where(eq(serviceTemplates.id, id))
        } catch (error) {
          if (pgErrorOf(error)?.code === '23503') {
            throw new AppError('ENTITY_IN_USE', `Service template ${code} is still used by an offer`)
          }
          throw error
        }
      })
    },
  }
}

export type ServiceTemplateService = ReturnType<typeof createServiceTemplateService>
