/** The tax mappings of tax classes with their taxes, as the rating engine's tax selection takes them. */
import type { Decimal } from 'decimal.js'
import { eq, inArray } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { taxClasses, taxes, taxMappings } from '../../kernel/db/schema/index.ts'
import { money } from '../../kernel/money.ts'

/** A tax mapping: which tax a class takes between a seller country and a billing country (null: any). */
export interface TaxMappingRow {
  readonly id: number
  readonly taxClassId: number
  readonly sellerCountryId: number | null
  readonly billingCountryId: number | null
  readonly priority: number
  readonly tax: { readonly id: number; readonly code: string; readonly percent: Decimal }
}

/** The tax mappings of tax classes, with their taxes. */
export async function taxMappingsOf(db: Db, taxClassIds: readonly number[]): Promise<TaxMappingRow[]> {
  if (taxClassIds.length === 0) return []
  const found = await db
    .select({
      id: taxMappings.id,
      taxClassId: taxMappings.taxClassId,
      sellerCountryId: taxMappings.sellerCountryId,
      billingCountryId: taxMappings.billingCountryId,
      priority: taxMappings.priority,
      taxId: taxes.id,
      taxCode: taxes.code,
      percent: taxes.percent,
    })
    .from(taxMappings)
    .innerJoin(taxes, eq(taxes.id, taxMappings.taxId))
    .where(inArray(taxMappings.taxClassId, [...new Set(taxClassIds)]))
  return found.map((m) => ({
    id: m.id,
    taxClassId: m.taxClassId,
    sellerCountryId: m.sellerCountryId,
    billingCountryId: m.billingCountryId,
    priority: m.priority,
    tax: { id: m.taxId, code: m.taxCode, percent: money(m.percent) },
  }))
}

/** Tax class codes by id (for messages). */
export async function taxClassCodes(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const found = await db
    .select({ id: taxClasses.id, code: taxClasses.code })
    .from(taxClasses)
    .where(inArray(taxClasses.id, [...new Set(ids)]))
  return new Map(found.map((r) => [r.id, r.code]))
}
