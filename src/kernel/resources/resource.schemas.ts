import { Type } from 'typebox'
import { decimalOut, nullableDecimalOut } from '../decimal-json.ts'
import { decimalStringPattern } from '../http/schemas.ts'
import type { WireRecord } from './resource.repository.ts'
import type { FieldDef } from '../model/index.ts'
import { CODE_PATTERN, type Resource } from './resource.model.ts'

type JsonSchema = Record<string, unknown>

const decimalSchema: JsonSchema = {
  anyOf: [{ type: 'number' }, { type: 'string', pattern: decimalStringPattern(28) }],
  description: 'decimal, as a JSON number or a decimal string',
}

function fieldSchema(field: FieldDef, extra: JsonSchema | undefined): JsonSchema {
  let schema: JsonSchema
  switch (field.type) {
    case 'string':
      schema = field.enumValues ? { type: 'string', enum: [...field.enumValues] } : { type: 'string', maxLength: 2000 }
      break
    case 'integer':
      schema = { type: 'integer', minimum: -2147483648, maximum: 2147483647 }
      break
    case 'long':
      schema = { type: 'integer' }
      break
    case 'decimal':
      schema = { ...decimalSchema }
      break
    case 'boolean':
      schema = { type: 'boolean' }
      break
    case 'date':
      schema = { type: 'string', format: 'date' }
      break
    case 'instant':
      schema = { type: 'string', format: 'date-time' }
      break
    case 'json':
      schema = { type: 'object', additionalProperties: true }
      break
    case 'stringList':
      schema = { type: 'array', items: { type: 'string', maxLength: 2000 }, maxItems: 1000 }
      break
  }
  return { ...schema, ...extra }
}

function nullable(schema: JsonSchema): JsonSchema {
  if ('anyOf' in schema) return { ...schema, anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }] }
  if (Array.isArray(schema.enum))
    return { ...schema, type: [schema.type, 'null'], enum: [...(schema.enum as unknown[]), null] }
  return { ...schema, type: [schema.type, 'null'] }
}

const cfValuesSchema: JsonSchema = {
  type: 'object',
  description: 'custom field values: code → [{ value }]',
  additionalProperties: {
    type: 'array',
    maxItems: 100,
    items: { type: 'object', required: ['value'], additionalProperties: false, properties: { value: {} } },
  },
}

/** Body schema of create (`forUpdate` false) or partial update (every field optional, `code` immutable). */
export function bodySchema(resource: Resource, forUpdate: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const field of resource.writableFields) {
    if (forUpdate && field.name === 'code') continue
    let schema = fieldSchema(field, resource.fieldSchemas?.[field.name])
    if (field.name === 'code') schema = { type: 'string', minLength: 1, maxLength: 255, pattern: CODE_PATTERN }
    if (field.nullable) schema = nullable(schema)
    properties[field.name] = schema
    if (!forUpdate && !field.nullable && !field.hasDefault) required.push(field.name)
  }
  for (const rel of resource.def.relations.values()) {
    if (rel.kind !== 'manyToOne' || rel.readOnly) continue
    const schema: JsonSchema = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: `code of the ${rel.target}`,
    }
    properties[rel.name] = rel.nullable ? nullable(schema) : schema
    if (!forUpdate && !rel.nullable) required.push(rel.name)
  }
  if (resource.def.customFields) properties.cfValues = cfValuesSchema
  const $id = `${resource.def.name}${forUpdate ? 'Update' : 'Input'}`
  return {
    $id,
    title: $id,
    type: 'object',
    additionalProperties: false,
    properties,
    ...(required.length > 0 ? { required } : {}),
  }
}

const AUDIT_FIELDS = ['created', 'updated', 'creator', 'updater']

/**
 * Response schema of a record, named by its entity (`Customer`): every field, relation (as the target's code) and the
 * audit block, all always sent (null when empty). Fields not declared here would not be sent: the record is built
 * from the same registry entity.
 */
export function recordSchema(resource: Pick<Resource, 'def'>): JsonSchema {
  const properties: Record<string, JsonSchema> = { id: { type: 'integer' } }
  for (const field of resource.def.fields.values()) {
    if (field.name === 'id' || AUDIT_FIELDS.includes(field.name)) continue
    // Decimals are written from their decimal text (`decimalOut`), never through a double.
    if (field.type === 'decimal') properties[field.name] = field.nullable ? nullableDecimalOut : decimalOut
    else
      properties[field.name] = field.nullable ? nullable(fieldSchema(field, undefined)) : fieldSchema(field, undefined)
  }
  for (const rel of resource.def.relations.values()) {
    if (rel.kind === 'manyToOne')
      properties[rel.name] = { type: ['string', 'null'], description: `code of the ${rel.target}` }
  }
  const audit: Record<string, JsonSchema> = {
    created: { type: 'string', format: 'date-time' },
    updated: { type: ['string', 'null'], format: 'date-time' },
    creator: { type: ['string', 'null'] },
    updater: { type: ['string', 'null'] },
  }
  const audited = AUDIT_FIELDS.filter((name) => resource.def.fields.has(name))
  if (audited.length > 0) {
    properties.auditable = {
      type: 'object',
      additionalProperties: false,
      required: audited,
      properties: Object.fromEntries(audited.map((name) => [name, audit[name]!])),
    }
  }
  return {
    $id: resource.def.name,
    title: resource.def.name,
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  }
}

/** One page of records (`CustomerPage`). */
export function listSchema(resource: Resource, record: JsonSchema): JsonSchema {
  return {
    $id: `${resource.def.name}Page`,
    title: `${resource.def.name}Page`,
    type: 'object',
    additionalProperties: false,
    required: ['total', 'offset', 'limit', 'data'],
    properties: {
      total: { type: 'integer', description: 'records the caller may see' },
      offset: { type: 'integer' },
      limit: { type: 'integer' },
      data: { type: 'array', items: record },
    },
  }
}

/** The named schemas of a resource (`Customer`, `CustomerInput`, `CustomerUpdate`, `CustomerPage`), typed. */
export function resourceSchemas(resource: Resource) {
  const recordJson = recordSchema(resource)
  const record = Type.Unsafe<WireRecord>(recordJson)
  return {
    record,
    input: Type.Unsafe<Record<string, unknown>>(bodySchema(resource, false)),
    update: Type.Unsafe<Record<string, unknown>>(bodySchema(resource, true)),
    page: Type.Unsafe<{ total: number; offset: number; limit: number; data: WireRecord[] }>(
      listSchema(resource, recordJson),
    ),
  }
}
