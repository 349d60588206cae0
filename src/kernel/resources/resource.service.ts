import type { Caller } from '../caller.ts'
import { sql, type SQL } from 'drizzle-orm'
import { MAX_PAGE_LIMIT } from '../http/pagination.ts'
import { withTransaction } from '../db/transaction.ts'
import type { Db } from '../db/database.ts'
import { AppError, type ErrorDetail, validationError } from '../errors.ts'
import { pgErrorOf } from '../db/database-errors.ts'
import { registry, type EntityDef, type FieldDef } from '../model/index.ts'
import { columnParam } from '../model/json.ts'
import type { SellerCodes } from '../model/row-security.ts'
import { validateCustomFieldValues } from './custom-fields.ts'
import type { Resource } from './resource.model.ts'
import * as repo from './resource.repository.ts'

export interface ListQuery {
  offset?: number
  limit?: number
  sortBy?: string
  sortOrder?: string
}

function humanize(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
}

/** Which entity a foreign-key violation came from, for a message the client can act on. */
function referencingEntity(error: unknown): string | undefined {
  const table = pgErrorOf(error)?.table
  const entity = registry.entities.find((e) => e.tableName === table)
  return entity ? humanize(entity.name) : table
}

export type ResourceService = ReturnType<typeof createResourceService>

/** Plain v1 resources (create, get, list, partial update, delete) driven by the entity registry. */
export function createResourceService(deps: { resource: Resource; db: Db; defaultLimit: () => Promise<number> }) {
  const { resource, db, defaultLimit } = deps
  const def: EntityDef = resource.def

  /**
   * The caller's seller restriction for this resource. Business entities need it on every read and write (row-level
   * security: a caller restricted to some sellers sees and changes only their records); for the others it changes
   * nothing and may be left out.
   */
  function scopeOf(sellerCodes: SellerCodes | undefined): SellerCodes {
    if (sellerCodes !== undefined) return sellerCodes
    if (def.business) throw new Error(`${def.name} is a business entity: pass the caller's seller restriction`)
    return null
  }

  /** A field a list is filtered on (named by code, never by a request). */
  function filterField(name: string): FieldDef {
    const field = def.fields.get(name)
    if (!field) throw new Error(`${def.name} has no field ${name} to filter on`)
    return field
  }

  function notFound(code: string): AppError {
    return new AppError('ENTITY_NOT_FOUND', `${resource.label} ${code} not found`)
  }

  /** The record just written, read back in the transaction that wrote it (and checked visible there). */
  async function writtenRecord(tx: Db, id: number, scope: SellerCodes): Promise<repo.WireRecord> {
    const found = await repo.findById(tx, def, id, scope)
    if (!found) throw new Error(`${def.name} ${id} vanished inside its own transaction`)
    return found
  }

  /**
   * The written record, in its new state inside the transaction, must still belong to one of the caller's sellers;
   * otherwise the transaction is undone by the 403. (A relation naming another seller's record is refused earlier,
   * naming the field; this also covers a seller created with a code outside the list.)
   */
  async function checkStillVisible(tx: Db, id: number, scope: SellerCodes): Promise<void> {
    if (await repo.withinSellers(tx, def, id, scope)) return
    throw new AppError(
      'FORBIDDEN',
      `The ${resource.label} would belong to a seller outside the sellers you may act for (${(scope ?? []).join(', ')})`,
    )
  }

  function translate(error: unknown, code: string | undefined): unknown {
    const pg = pgErrorOf(error)
    if (pg?.code === '23505') {
      if (pg.constraint?.endsWith('_code_unique')) {
        return new AppError('ENTITY_ALREADY_EXISTS', `${resource.label} ${code ?? ''} already exists`)
      }
      return new AppError('ENTITY_ALREADY_EXISTS', `A ${resource.label} with the same values already exists`)
    }
    if (pg?.code === '23503') {
      return new AppError('VALIDATION_FAILED', 'A referenced record was deleted while this request ran; retry')
    }
    if (pg?.code === '23514') {
      return validationError([
        { field: 'body', message: `the values break a rule of ${resource.label} (${pg.constraint ?? 'check'})` },
      ])
    }
    return error
  }

  /** Converts a validated body into column values: codes of related records become ids. */
  async function toColumns(
    tx: Db,
    body: Record<string, unknown>,
    id: number | undefined,
    scope: SellerCodes,
  ): Promise<Map<string, SQL>> {
    resource.normalize?.(body)
    const values = new Map<string, SQL>()
    const problems: ErrorDetail[] = []
    const forbidden: ErrorDetail[] = []
    const merged: Record<string, unknown> = id === undefined ? {} : { ...(await repo.findById(tx, def, id)) }
    for (const [key, value] of Object.entries(body)) {
      if (key === 'cfValues' && def.customFields) {
        problems.push(...(await validateCustomFieldValues(tx, def, value as Record<string, { value: unknown }[]>)))
        values.set('cf_values', sql`${JSON.stringify(value)}::jsonb`)
        merged[key] = value
        continue
      }
      const field: FieldDef | undefined = def.fields.get(key)
      if (field) {
        values.set(field.column, columnParam(field, value))
        merged[key] = value
        continue
      }
      const rel = def.relations.get(key)
      if (rel?.kind === 'manyToOne' && rel.column !== undefined) {
        merged[key] = value
        if (value === null) {
          values.set(rel.column, sql`null`)
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
          values.set(rel.column, sql`${targetId}`)
        }
        continue
      }
    }
    if (forbidden.length > 0) {
      throw new AppError('FORBIDDEN', forbidden.map((d) => `${d.field}: ${d.message}`).join('; '), {
        details: forbidden,
      })
    }
    if (resource.validate) {
      problems.push(...(await resource.validate(merged, { db: tx, entity: def, isCreate: id === undefined })))
    }
    if (problems.length > 0) throw validationError(problems)
    return values
  }

  return {
    resource,

    /** A record of a seller outside the caller's restriction reads as absent (404). */
    async get(code: string, sellerCodes?: SellerCodes): Promise<repo.WireRecord> {
      const found = await repo.findByCode(db, def, code, scopeOf(sellerCodes))
      if (!found) throw notFound(code)
      return found
    },

    /** A page of the records; `filter`: only those whose field holds one of the values (a rule of the caller's). */
    async list(
      query: ListQuery,
      sellerCodes?: SellerCodes,
      filter?: { field: string; values: readonly string[]; negate?: boolean },
    ) {
      const scope = scopeOf(sellerCodes)
      const limit = Math.min(query.limit ?? (await defaultLimit()), MAX_PAGE_LIMIT)
      const offset = query.offset ?? 0
      const sortField = def.fields.get(query.sortBy ?? 'code') ?? undefined
      if (!sortField || sortField.type === 'json' || sortField.type === 'stringList') {
        throw new AppError(
          'INVALID_PARAMETER',
          `sortBy: '${query.sortBy ?? ''}' is not a sortable field of ${def.name}`,
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
        db,
        def,
        { offset, limit, sortBy: sortField, descending: order.startsWith('DESC') },
        scope,
        filter && { ...filter, field: filterField(filter.field) },
      )
      return { total, offset, limit, data }
    },

    /** Creating a record that would belong to a seller outside the caller's restriction is 403. */
    async create(
      body: Record<string, unknown>,
      actor: Pick<Caller, 'username'>,
      sellerCodes?: SellerCodes,
    ): Promise<repo.WireRecord> {
      const scope = scopeOf(sellerCodes)
      try {
        return await withTransaction(db, async (tx) => {
          const values = await toColumns(tx, body, undefined, scope)
          values.set('creator', sql`${actor.username}`)
          const id = await repo.insert(tx, def, values)
          await checkStillVisible(tx, id, scope)
          return writtenRecord(tx, id, scope)
        })
      } catch (error) {
        throw translate(error, body.code as string)
      }
    },

    /**
     * Partial update. A record the caller may not see is 404; moving one to a seller outside the caller's restriction
     * (through the relation its seller path starts with) is 403, and changes nothing.
     */
    async update(
      code: string,
      body: Record<string, unknown>,
      actor: Pick<Caller, 'username'>,
      sellerCodes?: SellerCodes,
    ): Promise<repo.WireRecord> {
      const scope = scopeOf(sellerCodes)
      try {
        return await withTransaction(db, async (tx) => {
          const id = await repo.lockIdOfCode(tx, def, code, scope)
          if (id === undefined) throw notFound(code)
          const values = await toColumns(tx, body, id, scope)
          values.set('updated', sql`now()`)
          values.set('updater', sql`${actor.username}`)
          await repo.update(tx, def, id, values)
          await checkStillVisible(tx, id, scope)
          return writtenRecord(tx, id, scope)
        })
      } catch (error) {
        throw translate(error, code)
      }
    },

    async delete(code: string, sellerCodes?: SellerCodes): Promise<void> {
      const scope = scopeOf(sellerCodes)
      try {
        await withTransaction(db, async (tx) => {
          const id = await repo.lockIdOfCode(tx, def, code, scope)
          if (id === undefined) throw notFound(code)
          await repo.remove(tx, def, id)
        })
      } catch (error) {
        const pg = pgErrorOf(error)
        if (pg?.code === '23503') {
          throw new AppError(
            'ENTITY_IN_USE',
            `${resource.label} ${code} is still referenced by a ${referencingEntity(error) ?? 'record'}`,
          )
        }
        throw error
      }
    },
  }
}
