import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db/database.ts'
import { AppError, type ErrorDetail, validationError } from '../errors.ts'
import { pgErrorOf } from '../db/database-errors.ts'
import { registry, type EntityDef, type FieldDef } from '../model/index.ts'
import { columnParam } from '../model/json.ts'
import { validateCustomFieldValues } from './custom-fields.ts'
import type { Resource } from './resource.model.ts'
import * as repo from './resource.repository.ts'

export interface Actor {
  /** Who is acting, recorded as creator / updater. */
  username: string
}

export interface ListQuery {
  offset?: number
  limit?: number
  sortBy?: string
  sortOrder?: string
}

const MAX_LIMIT = 1000

function humanize(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
}

/** Which entity a foreign-key violation came from, for a message the client can act on. */
function referencingEntity(error: unknown): string | undefined {
  const table = pgErrorOf(error)?.table
  const entity = registry.entities.find((e) => e.tableName === table)
  return entity ? humanize(entity.name) : table
}

/** Plain v1 resources (create, get, list, partial update, delete) driven by the entity registry. */
export class ResourceService {
  readonly resource: Resource
  private readonly def: EntityDef
  private readonly db: Db
  private readonly defaultLimit: () => Promise<number>

  constructor(resource: Resource, db: Db, defaultLimit: () => Promise<number>) {
    this.resource = resource
    this.def = resource.def
    this.db = db
    this.defaultLimit = defaultLimit
  }

  async get(code: string): Promise<repo.WireRecord> {
    const found = await repo.findByCode(this.db, this.def, code)
    if (!found) throw new AppError('ENTITY_NOT_FOUND', `${this.resource.label} ${code} not found`)
    return found
  }

  async list(query: ListQuery) {
    const limit = Math.min(query.limit ?? (await this.defaultLimit()), MAX_LIMIT)
    const offset = query.offset ?? 0
    const sortField = this.def.fields.get(query.sortBy ?? 'code') ?? undefined
    if (!sortField || sortField.type === 'json' || sortField.type === 'stringList') {
      throw new AppError(
        'INVALID_PARAMETER',
        `sortBy: '${query.sortBy ?? ''}' is not a sortable field of ${this.def.name}`,
        {
          details: [{ field: 'sortBy', message: 'expected a scalar field name' }],
        },
      )
    }
    const order = (query.sortOrder ?? 'ASC').toUpperCase()
    if (!['ASC', 'DESC', 'ASCENDING', 'DESCENDING'].includes(order)) {
      throw new AppError(
        'INVALID_PARAMETER',
        `Invalid sortOrder ${query.sortOrder ?? ''}, expected ASC, DESC, ASCENDING or DESCENDING`,
        {
          details: [{ field: 'sortOrder', message: 'expected ASC, DESC, ASCENDING or DESCENDING' }],
        },
      )
    }
    const { total, data } = await repo.list(this.db, this.def, {
      offset,
      limit,
      sortBy: sortField,
      descending: order.startsWith('DESC'),
    })
    return { total, offset, limit, data }
  }

  async create(body: Record<string, unknown>, actor: Actor): Promise<repo.WireRecord> {
    try {
      return await this.db.transaction(async (tx) => {
        const values = await this.toColumns(tx, body, undefined)
        values.set('creator', sql`${actor.username}`)
        const id = await repo.insert(tx, this.def, values)
        return (await repo.findById(tx, this.def, id))!
      })
    } catch (error) {
      throw this.translate(error, body.code as string)
    }
  }

  async update(code: string, body: Record<string, unknown>, actor: Actor): Promise<repo.WireRecord> {
    try {
      return await this.db.transaction(async (tx) => {
        const id = await repo.lockIdOfCode(tx, this.def, code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `${this.resource.label} ${code} not found`)
        const values = await this.toColumns(tx, body, id)
        values.set('updated', sql`now()`)
        values.set('updater', sql`${actor.username}`)
        await repo.update(tx, this.def, id, values)
        return (await repo.findById(tx, this.def, id))!
      })
    } catch (error) {
      throw this.translate(error, code)
    }
  }

  async delete(code: string): Promise<void> {
    try {
      await this.db.transaction(async (tx) => {
        const id = await repo.lockIdOfCode(tx, this.def, code)
        if (id === undefined) throw new AppError('ENTITY_NOT_FOUND', `${this.resource.label} ${code} not found`)
        await repo.remove(tx, this.def, id)
      })
    } catch (error) {
      const pg = pgErrorOf(error)
      if (pg?.code === '23503') {
        throw new AppError(
          'ENTITY_IN_USE',
          `${this.resource.label} ${code} is still referenced by a ${referencingEntity(error) ?? 'record'}`,
        )
      }
      throw error
    }
  }

  private translate(error: unknown, code: string | undefined): unknown {
    const pg = pgErrorOf(error)
    if (pg?.code === '23505') {
      if (pg.constraint?.endsWith('_code_unique')) {
        return new AppError('ENTITY_ALREADY_EXISTS', `${this.resource.label} ${code ?? ''} already exists`)
      }
      return new AppError('ENTITY_ALREADY_EXISTS', `A ${this.resource.label} with the same values already exists`)
    }
    if (pg?.code === '23503') {
      return new AppError('VALIDATION_FAILED', 'A referenced record was deleted while this request ran; retry')
    }
    if (pg?.code === '23514') {
      return validationError([
        { field: 'body', message: `the values break a rule of ${this.resource.label} (${pg.constraint ?? 'check'})` },
      ])
    }
    return error
  }

  /** Converts a validated body into column values: codes of related records become ids. */
  private async toColumns(tx: Db, body: Record<string, unknown>, id: number | undefined): Promise<Map<string, SQL>> {
    this.resource.normalize?.(body)
    const values = new Map<string, SQL>()
    const problems: ErrorDetail[] = []
    const merged: Record<string, unknown> = id === undefined ? {} : { ...(await repo.findById(tx, this.def, id)) }
    for (const [key, value] of Object.entries(body)) {
      if (key === 'cfValues' && this.def.customFields) {
        problems.push(...(await validateCustomFieldValues(tx, this.def, value as Record<string, { value: unknown }[]>)))
        values.set('cf_values', sql`${JSON.stringify(value)}::jsonb`)
        merged[key] = value
        continue
      }
      const field: FieldDef | undefined = this.def.fields.get(key)
      if (field) {
        values.set(field.column, columnParam(field, value))
        merged[key] = value
        continue
      }
      const rel = this.def.relations.get(key)
      if (rel?.kind === 'manyToOne') {
        merged[key] = value
        if (value === null) {
          values.set(rel.column!, sql`null`)
          continue
        }
        const target = registry.get(rel.target)
        const targetId = await repo.idOfCode(tx, target, value as string)
        if (targetId === undefined) {
          problems.push({ field: key, message: `no ${humanize(target.name)} with code '${value as string}'` })
        } else {
          values.set(rel.column!, sql`${targetId}`)
        }
        continue
      }
    }
    if (this.resource.validate) {
      problems.push(...(await this.resource.validate(merged, { db: tx, entity: this.def, isCreate: id === undefined })))
    }
    if (problems.length > 0) throw validationError(problems)
    return values
  }
}
