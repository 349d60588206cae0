import { sql } from 'drizzle-orm'
import { rows } from '../../kernel/db/database.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { textArray } from '../../kernel/model/json.ts'
import type { ResourceSpec, ValidationContext } from '../../kernel/resources/resource.model.ts'
import { validateAttribute } from './attribute.model.ts'
import { matrixValuesOutside } from '../pricing/index.ts'

/**
 * An attribute's allowed values may change, except that a value some price matrix row names cannot go: the row would
 * no longer be valid (DECISIONS "MATRIX matching").
 */
async function attributeRule(record: Record<string, unknown>, context: ValidationContext): Promise<ErrorDetail[]> {
  const problems = validateAttribute(record)
  if (context.isCreate || problems.length > 0) return problems
  const allowed = (record.allowedValues as string[] | undefined) ?? []
  // Attributes without allowed values (free text, numbers) accept any row value.
  if (allowed.length === 0) return problems
  const outside = await matrixValuesOutside(context.db, record.code as string, allowed)
  if (outside.length === 0) return problems
  const charges = await rows<{ id: string | number; code: string }>(
    context.db,
    sql`select id, code from charge_template
      where id = any(${textArray(outside.map((u) => String(u.chargeId)))}::bigint[])`,
  )
  const chargeCode = new Map(charges.map((c) => [Number(c.id), c.code]))
  const used = outside
    .map((u) => ({ charge: chargeCode.get(u.chargeId) ?? String(u.chargeId), version: u.version, value: u.value }))
    .sort((a, b) => a.charge.localeCompare(b.charge) || a.version - b.version || a.value.localeCompare(b.value))
  return used.map((u) => ({
    field: 'allowedValues',
    message: `'${u.value}' is not allowed any more: it is used by the price matrix of charge ${u.charge} (version ${u.version})`,
  }))
}

/** The plain parts of the catalog, served by the generic v1 resource. */
export const catalogResources: ResourceSpec[] = [
  {
    entity: 'Attribute',
    path: 'attributes',
    roleResource: 'catalog.products',
    label: 'attribute',
    validate: attributeRule,
    fieldSchemas: {
      allowedValues: { uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 255 } },
      unitNbDecimal: { minimum: 0, maximum: 12 },
    },
  },
  { entity: 'Product', path: 'products', roleResource: 'catalog.products', label: 'product' },
  {
    entity: 'CounterTemplate',
    path: 'counterTemplates',
    roleResource: 'catalog.charges',
    label: 'counter template',
    fieldSchemas: { ceiling: { minimum: 0 } },
  },
  {
    entity: 'OfferTemplateCategory',
    path: 'offerTemplateCategories',
    roleResource: 'catalog.offers',
    label: 'offer template category',
  },
]
