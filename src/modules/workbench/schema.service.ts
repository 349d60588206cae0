import { AppError } from '../../kernel/errors.ts'
import type { Principal } from '../../kernel/http/principal.ts'
import { requireEntityReadable } from '../../kernel/http/principal.ts'
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
        fullName: `org.obol.model.${entity.package}.${sub ?? entity.name}`,
        parent: sub ? entity.name : null,
        subclasses: sub ? [] : subclasses,
        fields,
        database: { tableName: entity.tableName, columns },
      }
    },
  }
}

export type SchemaService = ReturnType<typeof createSchemaService>
