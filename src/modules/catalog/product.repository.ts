import { and, asc, desc, eq, max, sql } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import {
  attributes,
  chargeTemplates,
  productDiscountPlans,
  productVersionAttributes,
  productVersionCharges,
  productVersions,
} from '../../kernel/db/schema/index.ts'
import { discountPlanCodeOf } from '../discounts/index.ts'

export type ProductVersionRow = typeof productVersions.$inferSelect

export async function versionsOf(db: Db, productId: number): Promise<ProductVersionRow[]> {
  return db
    .select()
    .from(productVersions)
    .where(eq(productVersions.productId, productId))
    .orderBy(asc(productVersions.version))
}

/** One version, locked so a concurrent status change or link of the same version waits. */
export async function lockVersion(db: Db, productId: number, version: number): Promise<ProductVersionRow | undefined> {
  const found = await db
    .select()
    .from(productVersions)
    .where(and(eq(productVersions.productId, productId), eq(productVersions.version, version)))
    .for('update')
  return found[0]
}

export async function nextVersionNumber(db: Db, productId: number): Promise<number> {
  const found = await db
    .select({ last: max(productVersions.version) })
    .from(productVersions)
    .where(eq(productVersions.productId, productId))
  return (found[0]?.last ?? 0) + 1
}

/** The published version starting last. */
export async function latestPublished(db: Db, productId: number): Promise<ProductVersionRow | undefined> {
  const found = await db
    .select()
    .from(productVersions)
    .where(and(eq(productVersions.productId, productId), eq(productVersions.status, 'PUBLISHED')))
    .orderBy(sql`${productVersions.validFrom} desc nulls last`, desc(productVersions.version))
    .limit(1)
  return found[0]
}

export async function insertVersion(
  db: Db,
  values: {
    productId: number
    version: number
    shortDescription: string | null
    validFrom: string | null
    validTo: string | null
  },
  actor: string,
): Promise<void> {
  await db.insert(productVersions).values({ ...values, creator: actor })
}

export async function updateVersion(
  db: Db,
  id: number,
  values: Partial<Pick<ProductVersionRow, 'shortDescription' | 'validFrom' | 'validTo' | 'status'>> & {
    publishedAt?: Date
  },
  actor: string,
): Promise<void> {
  await db
    .update(productVersions)
    .set({ ...values, updated: sql`now()`, updater: actor })
    .where(eq(productVersions.id, id))
}

export async function deleteVersion(db: Db, id: number): Promise<void> {
  await db.delete(productVersions).where(eq(productVersions.id, id))
}

export async function attributeCodes(db: Db, versionId: number): Promise<string[]> {
  const found = await db
    .select({ code: attributes.code })
    .from(productVersionAttributes)
    .innerJoin(attributes, eq(attributes.id, productVersionAttributes.attributeId))
    .where(eq(productVersionAttributes.productVersionId, versionId))
    .orderBy(asc(productVersionAttributes.id))
  return found.map((r) => r.code)
}

export async function chargeCodes(db: Db, versionId: number): Promise<string[]> {
  const found = await db
    .select({ code: chargeTemplates.code })
    .from(productVersionCharges)
    .innerJoin(chargeTemplates, eq(chargeTemplates.id, productVersionCharges.chargeId))
    .where(eq(productVersionCharges.productVersionId, versionId))
    .orderBy(asc(productVersionCharges.id))
  return found.map((r) => r.code)
}

export async function linkAttribute(db: Db, versionId: number, attributeId: number): Promise<void> {
  await db.insert(productVersionAttributes).values({ productVersionId: versionId, attributeId }).onConflictDoNothing()
}

export async function unlinkAttribute(db: Db, versionId: number, attributeId: number): Promise<void> {
  await db
    .delete(productVersionAttributes)
    .where(
      and(
        eq(productVersionAttributes.productVersionId, versionId),
        eq(productVersionAttributes.attributeId, attributeId),
      ),
    )
}

export async function linkCharge(db: Db, versionId: number, chargeId: number): Promise<void> {
  await db.insert(productVersionCharges).values({ productVersionId: versionId, chargeId }).onConflictDoNothing()
}

export async function unlinkCharge(db: Db, versionId: number, chargeId: number): Promise<void> {
  await db
    .delete(productVersionCharges)
    .where(and(eq(productVersionCharges.productVersionId, versionId), eq(productVersionCharges.chargeId, chargeId)))
}

export async function discountPlanCodes(db: Db, productId: number): Promise<string[]> {
  const code = discountPlanCodeOf(sql`${productDiscountPlans.discountPlanId}`)
  const found = await db
    .select({ code })
    .from(productDiscountPlans)
    .where(eq(productDiscountPlans.productId, productId))
    .orderBy(asc(code))
  return found.map((r) => r.code)
}

export async function linkDiscountPlan(db: Db, productId: number, discountPlanId: number): Promise<void> {
  await db.insert(productDiscountPlans).values({ productId, discountPlanId }).onConflictDoNothing()
}

export async function unlinkDiscountPlan(db: Db, productId: number, discountPlanId: number): Promise<void> {
  await db
    .delete(productDiscountPlans)
    .where(and(eq(productDiscountPlans.productId, productId), eq(productDiscountPlans.discountPlanId, discountPlanId)))
}
