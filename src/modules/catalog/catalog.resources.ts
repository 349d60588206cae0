import { sql } from 'drizzle-orm'
import { rows } from '../../kernel/db/database.ts'
import type { ErrorDetail } from '../../kernel/errors.ts'
import { textArray } from '../../kernel/model/json.ts'
import type { ResourceSpec, ValidationContext } from '../../kernel/resources/resource.model.ts'
import { validateAttribute } from './attribute.model.ts'

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
  const used = await rows<{ charge: string; version: number; value: string }>(
    context.db,
    sql`select distinct c.code as charge, v.version, cell->>'stringValue' as value
      from pricing_matrix_column col
      join attribute a on a.id = col.attribute_id
      join pricing_version v on v.id = col.pricing_version_id
      join charge_template c on c.id = v.charge_id
      join pricing_matrix_row r on r.pricing_version_id = v.id
      cross join lateral jsonb_array_elements(r.values) cell
      where a.code = ${record.code as string} and cell->>'dimensionCode' = col.code
        and coalesce(cell->>'stringValue', '') <> '' and not (cell->>'stringValue' = any(${textArray(allowed)}))
      order by 1, 2, 3`,
  )
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
