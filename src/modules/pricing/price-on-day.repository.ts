/**
 * The published pricing of charges on days, batched, as pure definitions the rating engine prices with: for each
 * (charge, day) the PUBLISHED version valid that day by the timeline's one rule (`versionOn`).
 */
import { and, asc, eq, inArray } from 'drizzle-orm'
import type { Db } from '../../kernel/db/database.ts'
import { inTurn } from '../../kernel/db/in-turn.ts'
import {
  attributes,
  pricingMatrixColumns,
  pricingMatrixRows,
  pricingVersions,
  tradingCurrencies,
} from '../../kernel/db/schema/index.ts'
import type { MatrixCell, MatrixColumnType, PricingDefinition } from './models/index.ts'
import { pricingDefinition } from './pricing-definition.ts'
import { versionOn } from './timeline.model.ts'

/** A published pricing version as rating takes it: its id and number, its currency code and its definition. */
export interface PublishedPricing {
  readonly versionId: number
  readonly version: number
  readonly currency: string
  readonly definition: PricingDefinition
}

/**
 * The published pricing of charges on days (end-exclusive timeline), as pure definitions. Keyed `chargeId@day`;
 * absent when the charge has no published price that day.
 */
export async function pricingOn(
  db: Db,
  wanted: readonly { chargeId: number; day: string }[],
): Promise<Map<string, PublishedPricing>> {
  const result = new Map<string, PublishedPricing>()
  if (wanted.length === 0) return result
  const versions = await db
    .select({
      id: pricingVersions.id,
      chargeId: pricingVersions.chargeId,
      version: pricingVersions.version,
      pricingModel: pricingVersions.pricingModel,
      validFrom: pricingVersions.validFrom,
      validTo: pricingVersions.validTo,
      price: pricingVersions.price,
      priceFx: pricingVersions.priceFx,
      currency: tradingCurrencies.code,
    })
    .from(pricingVersions)
    .innerJoin(tradingCurrencies, eq(tradingCurrencies.id, pricingVersions.currencyId))
    .where(
      and(
        inArray(pricingVersions.chargeId, [...new Set(wanted.map((w) => w.chargeId))]),
        eq(pricingVersions.status, 'PUBLISHED'),
      ),
    )
  const chosen = new Map<string, (typeof versions)[number]>()
  for (const { chargeId, day } of wanted) {
    const valid = versionOn(
      versions.filter((v) => v.chargeId === chargeId),
      day,
    )
    if (valid) chosen.set(`${chargeId}@${day}`, valid)
  }
  const matrixIds = [...new Set([...chosen.values()].filter((v) => v.pricingModel === 'MATRIX').map((v) => v.id))]
  const [columns, rows] =
    matrixIds.length === 0
      ? [[], []]
      : await inTurn(
          () =>
            db
              .select({
                versionId: pricingMatrixColumns.pricingVersionId,
                code: pricingMatrixColumns.code,
                type: pricingMatrixColumns.columnType,
                position: pricingMatrixColumns.position,
                attributeCode: attributes.code,
              })
              .from(pricingMatrixColumns)
              .innerJoin(attributes, eq(attributes.id, pricingMatrixColumns.attributeId))
              .where(inArray(pricingMatrixColumns.pricingVersionId, matrixIds))
              .orderBy(asc(pricingMatrixColumns.position)),
          () =>
            db
              .select({
                versionId: pricingMatrixRows.pricingVersionId,
                priority: pricingMatrixRows.priority,
                price: pricingMatrixRows.price,
                values: pricingMatrixRows.values,
              })
              .from(pricingMatrixRows)
              .where(inArray(pricingMatrixRows.pricingVersionId, matrixIds))
              .orderBy(asc(pricingMatrixRows.priority)),
        )
  const definitions = new Map<number, PricingDefinition>()
  const definitionOf = (v: (typeof versions)[number]): PricingDefinition => {
    let definition = definitions.get(v.id)
    if (definition) return definition
    definition = pricingDefinition(
      v,
      columns.filter((c) => c.versionId === v.id).map((c) => ({ ...c, type: c.type as MatrixColumnType })),
      rows.filter((r) => r.versionId === v.id).map((r) => ({ ...r, values: r.values as unknown as MatrixCell[] })),
    )
    definitions.set(v.id, definition)
    return definition
  }
  for (const [key, v] of chosen) {
    result.set(key, { versionId: v.id, version: v.version, currency: v.currency, definition: definitionOf(v) })
  }
  return result
}
