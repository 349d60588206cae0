import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db/database.ts'
import { AppError, type ErrorDetail, validationError } from '../errors.ts'
import { pgErrorOf } from '../db/database-errors.ts'
import { registry, type EntityDef, type FieldDef } from '../model/index.ts'
import { columnParam } from '../model/json.ts'
import type { SellerCodes } from '../model/row-security.ts'
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

  /**
   * The caller's seller restriction for this resource. Business entities need it on every read and write (row-level
   * security: a caller restricted to some sellers sees and changes only their records); for the others it changes
   * nothing and may be left out.
   */
  private scope(sellerCodes: SellerCodes | undefined): SellerCodes {
    if (sellerCodes !== undefined) return sellerCodes
    if (this.def.business)
      throw new Error(`${this.def.name} is a business entity: pass the caller's seller restriction`)
    return null
  }

  private notFound(code: string): AppError {
    return new AppError('ENTITY_NOT_FOUND', `${this.resource.label} ${code} not found`)
  }

  /** A record of a seller outside the caller's restriction reads as absent (404). */
  async get(code: string, sellerCodes?: SellerCodes): Promise<repo.WireRecord> {
    const found = await repo.findByCode(this.db, this.def, code, this.scope(sellerCodes))
    if (!found) throw this.notFound(code)
    return found
  }

  async list(query: ListQuery, sellerCodes?: SellerCodes) {
    const scope = this.scope(sellerCodes)
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
    const { total, data } = await repo.list(
      this.db,
      this.def,
      { offset, limit, sortBy: sortField, descending: order.startsWith('DESC') },
      scope,
    )
    return { total, offset, limit, data }
  }

  /** Creating a record that would belong to a seller outside the caller's restriction is 403. */
  async create(body: Record<string, unknown>, actor: Actor, sellerCodes?: SellerCodes): Promise<repo.WireRecord> {
    const scope = this.scope(sellerCodes)
    try {
      return await this.db.transaction(async (tx) => {
        const values = await this.toColumns(tx, body, undefined, scope)
        values.set('creator', sql`${actor.username}`)
        const id = await repo.insert(tx, this.def, values)
        await this.checkStillVisible(tx, id, scope)
        return (await repo.findById(tx, this.def, id, scope))!
      })
    } catch (error) {
      throw this.translate(error, body.code as string)
    }
  }

  /**
   * Partial update. A record the caller may not see is 404; moving one to a seller outside the caller's restriction
   * (through the relation its seller path starts with) is 403, and changes nothing.
   */
  async update(
    code: string,
    body: Record<string, unknown>,
    actor: Actor,
    sellerCodes?: SellerCodes,
  ): Promise<repo.WireRecord> {
    const scope = this.scope(sellerCodes)
    try {
      return await this.db.transaction(async (tx) => {
        const id = await repo.lockIdOfCode(tx, this.def, code, scope)
        if (id === undefined) throw this.notFound(code)
        const values = await this.toColumns(tx, body, id, scope)
        values.set('updated', sql`now()`)
        values.set('updater', sql`${actor.username}`)
        await repo.update(tx, this.def, id, values)
        await this.checkStillVisible(tx, id, scope)
        return (await repo.findById(tx, this.def, id, scope))!
      })
    } catch (error) {
      throw this.translate(error, code)
    }
  }

  async delete(code: string, sellerCodes?: SellerCodes): Promise<void> {
    const scope = this.scope(sellerCodes)
    try {
      await this.db.transaction(async (tx) => {
        const id = await repo.lockIdOfCode(tx, this.def, code, scope)
        if (id === undefined) throw this.notFound(code)
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

  /**
   * The written record, in its new state inside the transaction, must still belong to one of the caller's sellers;
   * otherwise the transaction is undone by the 403. (A relation naming another seller's record is refused earlier,
   * naming the field; this also covers a seller created with a code outside the list.)
   */
  private async checkStillVisible(tx: Db, id: number, scope: SellerCodes): Promise<void> {
    if (await repo.withinSellers(tx, this.def, id, scope)) return
    throw new AppError(
      'FORBIDDEN',
      `The ${this.resource.label} would belong to a seller outside the sellers you may act for (${(scope ?? []).join(', ')})`,
    )
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
  private async toColumns(
    tx: Db,
    body: Record<string, unknown>,
    id: number | undefined,
    scope: SellerCodes,
  ): Promise<Map<string, SQL>> {
    this.resource.normalize?.(body)
    const values = new Map<string, SQL>()
    const problems: ErrorDetail[] = []
    const forbidden: ErrorDetail[] = []
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
        } else if (!(await repo.withinSellers(tx, target, targetId, scope))) {
          forbidden.push({
            field: key,
            message: `${humanize(target.name)} ${value as string} belongs to a seller outside the sellers you may act for`,
          })
        } else {
          values.set(rel.column!, sql`${targetId}`)
        }
        continue
      }
    }
    if (forbidden.length > 0) {
      throw new AppError('FORBIDDEN', forbidden.map((d) => `${d.field}: ${d.message}`).join('; '), {
        details: forbidden,
      })
    }
    if (this.resource.validate) {
      problems.push(...(await this.resource.validate(merged, { db: tx, entity: this.def, isCreate: id === undefined })))
    }
    if (problems.length > 0) throw validationError(problems)
    return values
  }
}
