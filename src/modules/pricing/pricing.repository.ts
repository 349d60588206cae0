import { and, asc, desc, eq, inArray, max, sql } from 'drizzle-orm'
import { rows, type Db } from '../../kernel/db/database.ts'
import { textArray } from '../../kernel/model/json.ts'
import {
  attributes,
  pricingMatrixColumns,
  pricingMatrixRows,
  pricingVersions,
  tradingCurrencies,
} from '../../kernel/db/schema/index.ts'
import type { MatrixCell, MatrixColumnType } from './models/index.ts'
import type { ValidMatrix } from './matrix-definition.ts'

export type VersionRecord = typeof pricingVersions.$inferSelect & { currencyCode: string }

export interface ColumnRecord {
  pricingVersionId: number
  code: string
  type: MatrixColumnType
  position: number
  attributeCode: string
  attributeDescription: string | null
  allowedValues: string[]
}

export interface RowRecord {
  pricingVersionId: number
  priority: number
  price: string
  description: string | null
  values: MatrixCell[]
}

export interface StoredVersion {
  version: VersionRecord
  columns: ColumnRecord[]
  rows: RowRecord[]
}

const versionSelection = {
  id: pricingVersions.id,
  chargeId: pricingVersions.chargeId,
  version: pricingVersions.version,
  status: pricingVersions.status,
  pricingModel: pricingVersions.pricingModel,
  currencyId: pricingVersions.currencyId,
  validFrom: pricingVersions.validFrom,
  validTo: pricingVersions.validTo,
  price: pricingVersions.price,
  priceFx: pricingVersions.priceFx,
  publishedAt: pricingVersions.publishedAt,
  created: pricingVersions.created,
  updated: pricingVersions.updated,
  creator: pricingVersions.creator,
  updater: pricingVersions.updater,
  currencyCode: tradingCurrencies.code,
}

/** Every version of a charge in version order, with matrix columns (and their attributes) and rows. */
export async function versionsOfCharge(db: Db, chargeId: number): Promise<StoredVersion[]> {
  const versions = await db
    .select(versionSelection)
    .from(pricingVersions)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, pricingVersions.currencyId))
    .where(eq(pricingVersions.chargeId, chargeId))
    .orderBy(asc(pricingVersions.version))
  const matrixIds = versions.filter((v) => v.pricingModel === 'MATRIX').map((v) => v.id)
  const columns =
    matrixIds.length === 0
      ? []
      : await db
          .select({
            pricingVersionId: pricingMatrixColumns.pricingVersionId,
            code: pricingMatrixColumns.code,
            type: pricingMatrixColumns.columnType,
            position: pricingMatrixColumns.position,
            attributeCode: attributes.code,
            attributeDescription: attributes.description,
            allowedValues: attributes.allowedValues,
          })
          .from(pricingMatrixColumns)
          .innerJoin(attributes, eq(attributes.id, pricingMatrixColumns.attributeId))
          .where(inArray(pricingMatrixColumns.pricingVersionId, matrixIds))
          .orderBy(asc(pricingMatrixColumns.position))
  const rows =
    matrixIds.length === 0
      ? []
      : await db
          .select({
            pricingVersionId: pricingMatrixRows.pricingVersionId,
            priority: pricingMatrixRows.priority,
            price: pricingMatrixRows.price,
            description: pricingMatrixRows.description,
            values: pricingMatrixRows.values,
          })
          .from(pricingMatrixRows)
          .where(inArray(pricingMatrixRows.pricingVersionId, matrixIds))
          .orderBy(asc(pricingMatrixRows.priority))
  return versions.map((version) => ({
    version,
    columns: columns
      .filter((c) => c.pricingVersionId === version.id)
      .map((c) => ({ ...c, type: c.type as MatrixColumnType })),
    rows: rows
      .filter((r) => r.pricingVersionId === version.id)
      .map((r) => ({ ...r, values: r.values as unknown as MatrixCell[] })),
  }))
}

export async function findDraft(db: Db, chargeId: number): Promise<VersionRecord | undefined> {
  const found = await db
    .select(versionSelection)
    .from(pricingVersions)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, pricingVersions.currencyId))
    .where(and(eq(pricingVersions.chargeId, chargeId), eq(pricingVersions.status, 'DRAFT')))
  return found[0]
}

/** The published version starting last (a version open from the beginning starts first). */
export async function latestPublished(db: Db, chargeId: number): Promise<VersionRecord | undefined> {
  const found = await db
    .select(versionSelection)
    .from(pricingVersions)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, pricingVersions.currencyId))
    .where(and(eq(pricingVersions.chargeId, chargeId), eq(pricingVersions.status, 'PUBLISHED')))
    .orderBy(sql`${pricingVersions.validFrom} desc nulls last`, desc(pricingVersions.version))
    .limit(1)
  return found[0]
}

export async function nextVersionNumber(db: Db, chargeId: number): Promise<number> {
  const found = await db
    .select({ last: max(pricingVersions.version) })
    .from(pricingVersions)
    .where(eq(pricingVersions.chargeId, chargeId))
  return (found[0]?.last ?? 0) + 1
}

export interface DraftValues {
  pricingModel: string
  currencyId: number
  validFrom: string | null
  price: string
  priceFx: string | null
}

export async function insertDraft(
  db: Db,
  chargeId: number,
  version: number,
  values: DraftValues,
  actor: string,
): Promise<number> {
  const inserted = await db
    .insert(pricingVersions)
    .values({ chargeId, version, status: 'DRAFT', ...values, creator: actor })
    .returning({ id: pricingVersions.id })
  return inserted[0]!.id
}

export async function updateDraft(db: Db, id: number, values: DraftValues, actor: string): Promise<void> {
  await db
    .update(pricingVersions)
    .set({ ...values, updated: sql`now()`, updater: actor })
    .where(eq(pricingVersions.id, id))
}

/** Replaces the matrix of a version: columns (by attribute id) and rows. */
export async function replaceMatrix(
  db: Db,
  versionId: number,
  matrix: ValidMatrix | undefined,
  attributeIds: ReadonlyMap<string, number>,
): Promise<void> {
  await db.delete(pricingMatrixRows).where(eq(pricingMatrixRows.pricingVersionId, versionId))
  await db.delete(pricingMatrixColumns).where(eq(pricingMatrixColumns.pricingVersionId, versionId))
  if (!matrix) return
  await db.insert(pricingMatrixColumns).values(
    matrix.columns.map((column) => ({
      pricingVersionId: versionId,
      code: column.code,
      columnType: column.type,
      position: column.position,
      attributeId: attributeIds.get(column.attributeCode)!,
    })),
  )
  // Bounded batches keep each statement well under the parameter limit.
  for (let start = 0; start < matrix.rows.length; start += 500) {
    await db.insert(pricingMatrixRows).values(
      matrix.rows.slice(start, start + 500).map((row) => ({
        pricingVersionId: versionId,
        priority: row.priority,
        price: row.price.toFixed(),
        description: row.description,
        values: row.values.map((cell) => ({ ...cell })),
      })),
    )
  }
}

export async function publish(db: Db, id: number, actor: string): Promise<void> {
  await db
    .update(pricingVersions)
    .set({ status: 'PUBLISHED', publishedAt: sql`now()`, updated: sql`now()`, updater: actor })
    .where(eq(pricingVersions.id, id))
}

/** Ends a published version (exclusive end), as its successor starts. */
export async function close(db: Db, id: number, validTo: string, actor: string): Promise<void> {
  await db
    .update(pricingVersions)
    .set({ validTo, updated: sql`now()`, updater: actor })
    .where(eq(pricingVersions.id, id))
}

export async function deleteVersion(db: Db, id: number): Promise<void> {
  await db.delete(pricingVersions).where(eq(pricingVersions.id, id))
}

/**
 * The values of attribute `attributeCode` that some price matrix row names and `allowed` does not hold, by charge
 * id and version (an attribute's allowed values cannot drop a value a matrix row uses: DECISIONS "MATRIX matching").
 */
export async function matrixValuesOutside(
  db: Db,
  attributeCode: string,
  allowed: readonly string[],
): Promise<{ chargeId: number; version: number; value: string }[]> {
  const found = await rows<{ chargeId: string | number; version: number; value: string }>(
    db,
    sql`select distinct v.charge_id as "chargeId", v.version, cell->>'stringValue' as value
      from pricing_matrix_column col
      join attribute a on a.id = col.attribute_id
      join pricing_version v on v.id = col.pricing_version_id
      join pricing_matrix_row r on r.pricing_version_id = v.id
      cross join lateral jsonb_array_elements(r.values) cell
      where a.code = ${attributeCode} and cell->>'dimensionCode' = col.code
        and coalesce(cell->>'stringValue', '') <> '' and not (cell->>'stringValue' = any(${textArray([...allowed])}))`,
  )
  return found.map((row) => ({ ...row, chargeId: Number(row.chargeId) }))
}
