import { AppError } from '../../kernel/errors.ts'
import { entityFullName } from '../../kernel/model/index.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { requireEntityReadable, requireRole } from '../../kernel/http/principal.ts'
import type { QueryEngine } from '../query/index.ts'

/**
 * What the workbench editors complete from: the entities the caller may read, and one entity's fields and
 * relations with their table and columns. Read from the registry, as every part of the query layer is.
 */
export function createSchemaService(engine: QueryEngine) {
  const registry = engine.registry
  return {
    entities(principal: Principal): { entities: string[] } {
      return { entities: engine.entities(principal, {}).entities as string[] }
    },

    /**
     * The tables Expert SQL can read, with their columns, for its editor: exactly those its database role is granted
     * (the queryable entities less the platform's own records, `registry.expertReadable()`), so completion never
     * offers a table the run would be refused. Entities sharing a table (subclasses) give it once, columns merged.
     * The route asks queryExpert; an Expert run needs queryUser too, and so does its completion.
     */
    expertTables(principal: Principal) {
      requireRole(principal, 'queryUser')
      type Column = { name: string; type: string; references: string | null }
      const tables = new Map<string, Map<string, Column>>()
      for (const entity of registry.expertReadable()) {
        const columns = tables.get(entity.tableName) ?? new Map<string, Column>()
        tables.set(entity.tableName, columns)
        for (const f of entity.fields.values())
          columns.set(f.column, { name: f.column, type: f.type, references: null })
        for (const r of entity.relations.values()) {
          if (r.kind !== 'manyToOne') continue
          const target = registry.get(r.target)
          // A key to a table Expert cannot read is still a column of this one; it names no table then.
          const references = target.queryable && !target.platform ? target.tableName : null
          // A foreign key has the type of the id it holds.
          const type = target.fields.get('id')?.type ?? 'long'
          columns.set(r.column!, { name: r.column!, type, references })
        }
      }
      return {
        tables: [...tables.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, columns]) => ({ name, columns: [...columns.values()] })),
      }
    },

    describe(principal: Principal, token: string) {
      const { entity, restriction } = engine.resolveEntity(token)
      requireEntityReadable(principal, entity)
      const subclasses = Object.keys(entity.inheritance?.subclasses ?? {})
      // A subclass token describes the subclass: its parent is the entity, it has no subclasses of its own.
      const sub = restriction ? subclasses.find((n) => n.toLowerCase() === token.trim().toLowerCase()) : undefined
      if (restriction && !sub) throw new AppError('ENTITY_NOT_FOUND', `Entity ${token} not found`)
      const fields = [
        ...[...entity.fields.values()].map((f) => ({
          name: f.name,
          type: f.type,
          nullable: f.nullable,
          relation: null,
        })),
        ...[...entity.relations.values()]
          .filter((r) => registry.get(r.target).queryable)
          .map((r) => ({
            name: r.name,
            type: r.kind === 'manyToOne' ? registry.get(r.target).name : 'list',
            nullable: r.kind === 'manyToOne' ? r.nullable : true,
            relation: { kind: r.kind, target: r.target },
          })),
      ]
      const columns = [
        ...[...entity.fields.values()].map((f) => ({ field: f.name, column: f.column })),
        ...[...entity.relations.values()]
          .filter((r) => r.kind === 'manyToOne' && registry.get(r.target).queryable)
          .map((r) => ({ field: r.name, column: r.column! })),
      ]
      return {
        name: sub ?? entity.name,
        fullName: entityFullName(entity.package, sub ?? entity.name),
        parent: sub ? entity.name : null,
        subclasses: sub ? [] : subclasses,
        fields,
        database: { tableName: entity.tableName, columns },
      }
    },
  }
}

export type SchemaService = ReturnType<typeof createSchemaService>
