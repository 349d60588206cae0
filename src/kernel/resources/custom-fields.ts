import { sql } from 'drizzle-orm'
import { rows, type Db } from '../db/database.ts'
import type { ErrorDetail } from '../errors.ts'
import type { EntityDef } from '../model/index.ts'
import { textArray } from '../model/json.ts'

interface Template {
  code: string
  field_type: string
  storage_type: string
}

function checkValue(template: Template, value: unknown): string | undefined {
  if (value === null) return undefined
  if (template.storage_type !== 'SINGLE') {
    return Array.isArray(value) || typeof value === 'object'
      ? undefined
      : `expected a ${template.storage_type.toLowerCase()} value`
  }
  switch (template.field_type) {
    case 'LONG':
      return Number.isSafeInteger(value) ? undefined : 'expected an integer'
    case 'DOUBLE':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'expected a number'
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : 'expected true or false'
    case 'DATE':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? undefined : 'expected an ISO-8601 date'
    case 'ENTITY':
    case 'CHILD_ENTITY':
      return typeof value === 'string' || (typeof value === 'object' && !Array.isArray(value))
        ? undefined
        : 'expected an entity reference'
    default:
      return typeof value === 'string' ? undefined : 'expected a string'
  }
}

/** Custom field values must name a template of the entity and carry values of the template's type. */
export async function validateCustomFieldValues(
  db: Db,
  entity: EntityDef,
  values: Record<string, { value: unknown }[]>,
): Promise<ErrorDetail[]> {
  const codes = Object.keys(values)
  if (codes.length === 0) return []
  const templates = await rows<Template>(
    db,
    sql`select code, field_type, storage_type from custom_field_template where applies_to = ${entity.name} and code = any(${textArray(codes)})`,
  )
  const byCode = new Map(templates.map((t) => [t.code, t]))
  const problems: ErrorDetail[] = []
  for (const [code, entries] of Object.entries(values)) {
    const template = byCode.get(code)
    if (!template) {
      problems.push({
        field: `cfValues.${code}`,
        message: `no custom field template ${code} applies to ${entity.name}`,
      })
      continue
    }
    entries.forEach((entry, i) => {
      const problem = checkValue(template, entry.value)
      if (problem)
        problems.push({ field: `cfValues.${code}[${i}].value`, message: `${problem} (${template.field_type})` })
    })
  }
  return problems
}
