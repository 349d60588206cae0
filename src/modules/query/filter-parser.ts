import { AppError } from '../../kernel/errors.ts'
import type { EntityDef, EntityRegistry, FieldType } from '../../kernel/model/index.ts'
import { isCollection, keyType, PathProblem, walkPath, type Hop, type PathEnd } from './entity-paths.ts'
import { decimalText, nextDay, temporalValue, ValueProblem, valueFor } from './filter-values.ts'
import { isExactNumber, isPlainObject } from './json-text.ts'
import {
  combine,
  negate,
  TRUE,
  type CompareOp,
  type Condition,
  type CustomFieldMatch,
  type FieldPath,
  type Value,
} from './query.model.ts'
import { vetSqlFragment } from './raw-sql.ts'

export interface CustomFieldTemplate {
  readonly code: string
  readonly appliesTo: string
  readonly fieldType: string
  readonly storageType: string
  /** ENTITY and CHILD_ENTITY fields: the entity the value refers to (any spelling the registry resolves). */
  readonly entityClazz?: string | null
}

export interface FilterContext {
  readonly registry: EntityRegistry
  /** The caller holds queryExpert: `SQL...` keys and `inSqlList` are allowed. */
  readonly allowSql: boolean
  /** The custom field templates that apply to an entity, by code. */
  readonly customFields: (entity: EntityDef) => ReadonlyMap<string, CustomFieldTemplate>
}

export interface ParsedFilters {
  readonly condition: Condition
  /** Raw SQL fragments are present: database errors then belong to the client's SQL. */
  readonly usesSql: boolean
}

/** The filter conditions a key may start with (`ne price`, `fromRange date`…), matched case-insensitively. */
const CONDITIONS = [
  'ne',
  'eqOptional',
  'neOptional',
  'fromRange',
  'fromRangeExclusive',
  'fromOptionalRange',
  'toRange',
  'toRangeInclusive',
  'toOptionalRange',
  'toOptionalRangeInclusive',
  'list',
  'listInList',
  'inList',
  'not-inList',
  'inSqlList',
  'minmaxRange',
  'minmaxRangeInclusive',
  'minmaxOptionalRange',
  'minmaxOptionalRangeInclusive',
  'overlapOptionalRange',
  'overlapOptionalRangeInclusive',
  'likeCriterias',
  'wildcardOr',
  'wildcardOrIgnoreCase',
  'or',
  'anyMatch',
] as const

type ConditionName = (typeof CONDITIONS)[number] | 'eq' | 'wildcard'

const BY_LOWER_NAME = new Map<string, ConditionName>(CONDITIONS.map((c) => [c.toLowerCase(), c]))
const TWO_FIELDS = new Set<ConditionName>([
  'minmaxRange',
  'minmaxRangeInclusive',
  'minmaxOptionalRange',
  'minmaxOptionalRangeInclusive',
  'overlapOptionalRange',
  'overlapOptionalRangeInclusive',
])
const ANY_FIELD = new Set<ConditionName>(['likeCriterias', 'wildcardOr', 'wildcardOrIgnoreCase', 'or', 'anyMatch'])
const OPTIONAL = new Set<ConditionName>([
  'eqOptional',
  'neOptional',
  'fromOptionalRange',
  'toOptionalRange',
  'toOptionalRangeInclusive',
])
const RANGES: Partial<Record<ConditionName, { op: CompareOp; startOfDay?: boolean; wholeDay?: boolean }>> = {
  fromRange: { op: '>=', startOfDay: true },
  fromOptionalRange: { op: '>=', startOfDay: true },
  fromRangeExclusive: { op: '>' },
  toRange: { op: '<' },
  toOptionalRange: { op: '<' },
  toRangeInclusive: { op: '<=', wholeDay: true },
  toOptionalRangeInclusive: { op: '<=', wholeDay: true },
}

const MAX_NESTING = 16
const MAX_LIST = 1000
const NULL_MARKERS = new Set(['IS_NULL', 'IS_NOT_NULL'])

/** `*` is the client's wildcard; `%`, `_` and `\` in the value are literal. */
export function wildcardPattern(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%')
}

/** What an Optional condition with a null value becomes: left out of its set (recognized by identity). */
const LEFT_OUT: Condition = { kind: 'constant', value: true }

/**
 * Parses and validates a `filters` object against the registry: each key names a condition and a field path (a
 * plain path is equality), each value is checked against the field's type, and every problem is an error naming
 * the key. The result is one condition tree, and whether it holds raw SQL from the client.
 */
export function parseFilters(
  entity: EntityDef,
  filters: Record<string, unknown>,
  context: FilterContext,
): ParsedFilters {
  const parser = new FilterParser(context)
  const condition = parser.block(entity, filters, 'and', 0)
  return { condition, usesSql: parser.usesSql }
}

class FilterParser {
  usesSql = false
  private readonly context: FilterContext

  constructor(context: FilterContext) {
    this.context = context
  }

  /** A set of keys combined by its `$operator` (default AND), then ANDed with its `$filter<N>` blocks. */
  block(entity: EntityDef, object: Record<string, unknown>, operator: 'and' | 'or', nesting: number): Condition {
    if (nesting > MAX_NESTING) throw filterError('filters', `blocks are nested more than ${MAX_NESTING} levels deep`)
    let combinator = operator
    const items: Condition[] = []
    const blocks: Condition[] = []
    for (const [key, value] of Object.entries(object)) {
      if (/^\s*\$operator\s*$/i.test(key)) {
        if (typeof value !== 'string' || !/^\s*(and|or)\s*$/i.test(value)) throw filterError(key, 'expected AND or OR')
        combinator = value.trim().toLowerCase() as 'and' | 'or'
        continue
      }
      if (/^\s*\$filter\d+\s*$/i.test(key)) {
        if (!isPlainObject(value)) throw filterError(key, 'expected a nested filter object')
        blocks.push(this.block(entity, value, 'and', nesting + 1))
        continue
      }
      items.push(this.entry(entity, key, key, value, nesting))
    }
    // Entries left out (an Optional condition with a null value) take no part, and a set with no entries left
    // restricts nothing, whatever its operator: OR over nothing would otherwise be false.
    const kept = items.filter((item) => item !== LEFT_OUT)
    return combine('and', [kept.length === 0 ? TRUE : combine(combinator, kept), ...blocks])
  }

  private entry(entity: EntityDef, key: string, spec: string, value: unknown, nesting: number): Condition {
    const tokens = spec
      .trim()
      .split(/\s+/)
      .filter((t) => t.length > 0)
    const [first, ...rest] = tokens
    if (first === undefined) throw filterError(key, 'the key is empty')
    if (first.startsWith('$')) throw filterError(key, 'unknown key; expected $operator or $filter<N>')
    if (rest.length === 0) {
      if (/^SQL\w*$/.test(first)) return this.rawSql(key, value)
      if (/^(OR|AND\w*)$/i.test(first) && isPlainObject(value)) {
        return this.block(entity, value, first.toUpperCase() === 'OR' ? 'or' : 'and', nesting + 1)
      }
      return this.single(entity, key, 'eq', first, value)
    }
    // AND<suffix> lets one field carry several conditions in one JSON object: the word itself is dropped.
    if (/^AND\w*$/.test(first)) return this.entry(entity, key, rest.join(' '), value, nesting)
    const name = BY_LOWER_NAME.get(first.toLowerCase())
    if (!name) throw filterError(key, `unknown condition ${first}; expected one of ${CONDITIONS.join(', ')}`)
    if (TWO_FIELDS.has(name)) {
      if (rest.length !== 2) throw filterError(key, `${name} takes exactly two fields`)
      return name.startsWith('minmax')
        ? this.minmax(entity, key, name, rest as [string, string], value)
        : this.overlap(entity, key, name, rest as [string, string], value)
    }
    if (ANY_FIELD.has(name)) {
      const each: ConditionName = name === 'likeCriterias' || name === 'anyMatch' ? 'eq' : 'wildcard'
      if (value === null || value === undefined) throw filterError(key, 'a value is required')
      return combine(
        'or',
        rest.map((path) => this.single(entity, key, each, path, value, name === 'anyMatch')),
      )
    }
    if (rest.length !== 1) throw filterError(key, `${name} takes exactly one field`)
    return this.single(entity, key, name, rest[0]!, value)
  }

  /** One condition on one path: a field, a relation (code, id or null check), `type_class` or `cfValues`. */
  private single(
    entity: EntityDef,
    key: string,
    name: ConditionName,
    path: string,
    value: unknown,
    leftJoin = false,
  ): Condition {
    const dot = path.lastIndexOf('.')
    const last = path.slice(dot + 1)
    const prefix = dot < 0 ? '' : path.slice(0, dot)
    if (last === 'type_class') return this.typeClass(entity, key, name, prefix, value)
    if (last === 'cfValues') return this.customFieldFilter(entity, key, name, prefix, value)
    const walked = this.walk(entity, key, path)
    if (OPTIONAL.has(name) && (value === null || value === undefined)) return LEFT_OUT
    if (walked.end.kind === 'relation') return this.onRelation(key, name, walked.hops, walked.end, value, leftJoin)
    const field = walked.end.field
    return this.onPath(walked.hops, (relations) =>
      this.scalar(
        key,
        name,
        { relations, field: field.name, ...(leftJoin ? { leftJoin } : {}) },
        field.type,
        value,
        field.enumValues,
      ),
    )
  }

  /** `"seller": "MAIN"` (code), `"seller": { "id": 3 }`, `"seller": "IS_NULL"`, or any condition on the code. */
  private onRelation(
    key: string,
    name: ConditionName,
    hops: readonly Hop[],
    end: Extract<PathEnd, { kind: 'relation' }>,
    value: unknown,
    leftJoin: boolean,
  ): Condition {
    const relation = end.relation
    const many = relation.kind === 'oneToMany'
    if (
      typeof value === 'string' &&
      NULL_MARKERS.has(value) &&
      ['eq', 'ne', 'eqOptional', 'neOptional'].includes(name)
    ) {
      const absent: Condition = many
        ? negate(this.onPath([...hops, { relation, from: end.entity, to: end.target }], () => TRUE))
        : this.onPath(hops, (relations) => ({ kind: 'isNull', target: { relations, field: relation.name } }))
      return (value === 'IS_NULL') === name.startsWith('ne') ? negate(absent) : absent
    }
    const withTarget = [...hops, { relation, from: end.entity, to: end.target }]
    if (isPlainObject(value) && Object.keys(value).length === 1 && 'id' in value) {
      if (!many) {
        const type = keyType(this.context.registry, relation)
        return this.onPath(hops, (relations) =>
          this.scalar(key, name, { relations, field: relation.name }, type, value.id),
        )
      }
      const idType = end.target.fields.get('id')?.type ?? 'long'
      return this.onPath(withTarget, (relations) =>
        this.scalar(key, name, { relations, field: 'id' }, idType, value.id),
      )
    }
    const code = end.target.codeField
    if (!code)
      throw filterError(key, `${end.target.name} has no code; filter on ${relation.name}.<field> or with { "id": n }`)
    const codeType = end.target.fields.get(code)!.type
    const values = Array.isArray(value) ? (value as unknown[]) : [value]
    if (codeType === 'string' && values.some((v) => typeof v !== 'string' && v !== null && v !== undefined)) {
      throw filterError(key, `expected the code of a ${end.target.name} (a string), { "id": n } or IS_NULL`)
    }
    return this.onPath(withTarget, (relations) =>
      this.scalar(key, name, { relations, field: code, ...(leftJoin ? { leftJoin } : {}) }, codeType, value),
    )
  }

  /** Many-to-one hops become joins; the first one-to-many hop becomes an EXISTS over the collection. */
  private onPath(hops: readonly Hop[], build: (relations: readonly string[]) => Condition): Condition {
    const index = hops.findIndex(isCollection)
    if (index < 0) return build(hops.map((h) => h.relation.name))
    const where = this.onPath(hops.slice(index + 1), build)
    return {
      kind: 'exists',
      relations: hops.slice(0, index).map((h) => h.relation.name),
      collection: hops[index]!.relation.name,
      where,
    }
  }

  private scalar(
    key: string,
    name: ConditionName,
    target: FieldPath,
    type: FieldType,
    value: unknown,
    enumValues?: readonly string[],
  ): Condition {
    try {
      switch (name) {
        case 'eq':
        case 'eqOptional':
        case 'ne':
        case 'neOptional': {
          if (value === null || value === undefined) {
            throw new ValueProblem(
              'a value is required (IS_NULL tests for null; eqOptional and neOptional skip a null value)',
            )
          }
          if (typeof value === 'string' && NULL_MARKERS.has(value)) {
            const isNull: Condition = { kind: 'isNull', target }
            return (value === 'IS_NULL') === name.startsWith('ne') ? negate(isNull) : isNull
          }
          const equal = this.equals(target, type, value, enumValues)
          return name.startsWith('ne') ? notEqual(equal) : equal
        }
        case 'wildcard': {
          if (type !== 'string') throw new ValueProblem(`${target.field} is not a text field`)
          return { kind: 'like', target, pattern: wildcardPattern(`*${scalarText(value)}*`), ignoreCase: true }
        }
        case 'list': {
          if (type !== 'stringList') throw new ValueProblem(`${target.field} is not a list-valued field`)
          return { kind: 'listContains', target, values: [scalarText(value)] }
        }
        case 'listInList': {
          if (type !== 'stringList') throw new ValueProblem(`${target.field} is not a list-valued field`)
          if (!Array.isArray(value)) throw new ValueProblem('expected an array of values')
          if (value.length > MAX_LIST) throw new ValueProblem(`expected at most ${MAX_LIST} values`)
          return value.length === 0 ? TRUE : { kind: 'listContains', target, values: value.map(scalarText) }
        }
        case 'inList':
        case 'not-inList': {
          const found = this.inList(target, type, value, enumValues)
          return name === 'inList' ? found : negate(found)
        }
        case 'inSqlList':
          return { kind: 'inSql', key, target, ...this.sqlText(key, value, 'select') }
        default: {
          const range = RANGES[name]
          if (!range) throw new ValueProblem(`${name} cannot be used here`)
          if (value === null || value === undefined)
            throw new ValueProblem(`a value is required (the optional form of ${name} skips a null value)`)
          return this.range(target, type, range, value)
        }
      }
    } catch (error) {
      if (error instanceof ValueProblem) throw filterError(key, error.message)
      throw error
    }
  }

  /** Equality: text ignores case and honours `*`; a day on an instant field is the whole day in the tenant zone. */
  private equals(target: FieldPath, type: FieldType, value: unknown, enumValues?: readonly string[]): Condition {
    if (typeof value === 'object' && value !== null && !isExactNumber(value))
      throw new ValueProblem('expected a single value')
    if (type === 'string') {
      const text = scalarText(value)
      if (text.includes('*')) return { kind: 'like', target, pattern: wildcardPattern(text), ignoreCase: true }
      // An enumerated field holds its declared spellings only: the exact comparison is equivalent, and indexable.
      const declared = enumValues?.find((v) => v.toLowerCase() === text.toLowerCase())
      if (declared !== undefined)
        return { kind: 'compare', target, op: '=', value: { kind: 'text', text: declared }, ignoreCase: false }
      return { kind: 'compare', target, op: '=', value: { kind: 'text', text }, ignoreCase: true }
    }
    if (type === 'instant' || type === 'date') {
      const v = temporalValue(value)
      if (v.kind === 'day' && type === 'instant') {
        return combine('and', [
          { kind: 'compare', target, op: '>=', value: v, ignoreCase: false },
          { kind: 'compare', target, op: '<', value: { kind: 'day', day: nextDay(v.day) }, ignoreCase: false },
        ])
      }
      return { kind: 'compare', target, op: '=', value: type === 'date' ? dayOfWallClock(v) : v, ignoreCase: false }
    }
    return { kind: 'compare', target, op: '=', value: valueFor(type, value), ignoreCase: false }
  }

  private range(
    target: FieldPath,
    type: FieldType,
    range: { op: CompareOp; startOfDay?: boolean; wholeDay?: boolean },
    value: unknown,
  ): Condition {
    if (type === 'boolean' || type === 'json' || type === 'stringList')
      throw new ValueProblem(`${target.field} cannot be compared by range`)
    if (type !== 'instant' && type !== 'date') {
      return { kind: 'compare', target, op: range.op, value: valueFor(type, value), ignoreCase: false }
    }
    let v = temporalValue(value)
    if (range.startOfDay) v = startOfDay(v)
    if (type === 'date') v = dayOfWallClock(v)
    if (range.wholeDay && v.kind === 'day' && type === 'instant') {
      return { kind: 'compare', target, op: '<', value: { kind: 'day', day: nextDay(v.day) }, ignoreCase: false }
    }
    return { kind: 'compare', target, op: range.op, value: v, ignoreCase: false }
  }

  private inList(target: FieldPath, type: FieldType, value: unknown, enumValues?: readonly string[]): Condition {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined
    if (!items) throw new ValueProblem('expected an array of values')
    if (items.length > MAX_LIST) throw new ValueProblem(`expected at most ${MAX_LIST} values`)
    if (items.some((v) => v === null || v === undefined)) throw new ValueProblem('the list may not contain null')
    if (type === 'instant' || type === 'date')
      return combine(
        'or',
        items.map((v) => this.equals(target, type, v)),
      )
    if (type === 'string') {
      const texts = items.map(scalarText)
      const declared = texts.map((t) => enumValues?.find((v) => v.toLowerCase() === t.toLowerCase()))
      if (declared.every((d) => d !== undefined)) {
        return {
          kind: 'in',
          target,
          values: [...new Set(declared)].map((text) => ({ kind: 'text', text })),
          ignoreCase: false,
        }
      }
      return { kind: 'in', target, values: texts.map((text) => ({ kind: 'text', text })), ignoreCase: true }
    }
    if (items.length === 0) return { kind: 'constant', value: false }
    return { kind: 'in', target, values: items.map((v) => valueFor(type, v)), ignoreCase: false }
  }

  /** `minmaxRange f1 f2`: f1 <= value < f2 (f2 inclusive in the Inclusive forms; a null field is open in the Optional forms). */
  private minmax(
    entity: EntityDef,
    key: string,
    name: ConditionName,
    fields: [string, string],
    value: unknown,
  ): Condition {
    const optional = name.includes('Optional')
    const [low, high] = fields.map((f) => this.fieldPath(entity, key, f)) as [FieldWalk, FieldWalk]
    if (value === null || value === undefined) {
      if (optional) return LEFT_OUT
      throw filterError(key, `a value is required (${name.replace('minmax', 'minmaxOptional')} skips a null value)`)
    }
    const upperOp: CompareOp = name.endsWith('Inclusive') ? '>=' : '>'
    return combine('and', [
      this.bound(key, low, '<=', value, optional),
      this.bound(key, high, upperOp, value, optional),
    ])
  }

  /** `overlapOptionalRange f1 f2` with `[from, to]`: the ranges overlap; a null bound or field is open. */
  private overlap(
    entity: EntityDef,
    key: string,
    name: ConditionName,
    fields: [string, string],
    value: unknown,
  ): Condition {
    const [start, end] = fields.map((f) => this.fieldPath(entity, key, f)) as [FieldWalk, FieldWalk]
    if (value === null || value === undefined) return LEFT_OUT
    if (!Array.isArray(value) || value.length !== 2) throw filterError(key, 'expected a two-element array [from, to]')
    const [from, to] = value as [unknown, unknown]
    const inclusive = name.endsWith('Inclusive')
    const parts: Condition[] = []
    if (to !== null && to !== undefined) parts.push(this.bound(key, start, inclusive ? '<=' : '<', to, true))
    if (from !== null && from !== undefined) parts.push(this.bound(key, end, inclusive ? '>=' : '>', from, true))
    return combine('and', parts)
  }

  /** `field op value` on a walked field; `open` lets a null field pass. Days stand for their start. */
  private bound(key: string, walk: FieldWalk, op: CompareOp, value: unknown, open: boolean): Condition {
    return this.onPath(walk.hops, (relations) => {
      const target: FieldPath = { relations, field: walk.field }
      let compared: Value
      try {
        if (walk.type === 'boolean' || walk.type === 'json' || walk.type === 'stringList') {
          throw new ValueProblem(`${walk.field} cannot be compared by range`)
        }
        compared = valueFor(walk.type, value)
        if (walk.type === 'date') compared = dayOfWallClock(compared)
      } catch (error) {
        if (error instanceof ValueProblem) throw filterError(key, error.message)
        throw error
      }
      const compare: Condition = { kind: 'compare', target, op, value: compared, ignoreCase: false }
      return open ? combine('or', [{ kind: 'isNull', target }, compare]) : compare
    })
  }

  private fieldPath(entity: EntityDef, key: string, path: string): FieldWalk {
    const walked = this.walk(entity, key, path)
    if (walked.end.kind !== 'field') throw filterError(key, `${path} is a relation; name one of its fields`)
    return { hops: walked.hops, field: walked.end.field.name, type: walked.end.field.type }
  }

  /** `type_class`: the names (full or simple) of the entity or its subclasses, through the registry's inheritance. */
  private typeClass(entity: EntityDef, key: string, name: ConditionName, prefix: string, value: unknown): Condition {
    if (!['eq', 'ne', 'inList', 'not-inList'].includes(name))
      throw filterError(key, `${name} cannot be used with type_class`)
    const { hops, target } = this.prefix(entity, key, prefix)
    // inList takes a comma-separated string as well as an array, as it does on fields.
    const names = Array.isArray(value)
      ? value
      : typeof value === 'string' && name.endsWith('inList')
        ? value.split(',').map((n) => n.trim())
        : [value]
    if (names.length === 0 || names.some((n) => typeof n !== 'string' || n.trim() === '')) {
      throw filterError(key, 'expected a class name or a list of class names')
    }
    const values = new Set<string>()
    let all = false
    for (const className of names as string[]) {
      if (this.context.registry.find(className) === target) {
        all = true
        continue
      }
      const sub = this.context.registry.findSubclass(className)
      if (sub?.entity !== target)
        throw filterError(key, `${className} is not ${target.fullName} or one of its subclasses`)
      values.add(sub.value)
    }
    const discriminator = target.inheritance?.discriminator
    const matches = (relations: readonly string[]): Condition =>
      all || !discriminator
        ? TRUE
        : {
            kind: 'in',
            target: { relations, field: discriminator },
            values: [...values].map((text) => ({ kind: 'text', text })),
            ignoreCase: false,
          }
    const found = this.onPath(hops, matches)
    return name === 'ne' || name === 'not-inList' ? negate(found) : found
  }

  /** A custom-field filter `{ "<code>": [{ "value": v }] }`, converted by the template's declared type; codes are ANDed, values ORed. */
  private customFieldFilter(
    entity: EntityDef,
    key: string,
    name: ConditionName,
    prefix: string,
    value: unknown,
  ): Condition {
    if (name !== 'eq') throw filterError(key, 'a custom field filter takes no condition')
    const { hops, target } = this.prefix(entity, key, prefix)
    if (!target.customFields) throw filterError(key, `${target.name} has no custom fields`)
    if (!isPlainObject(value) || Object.keys(value).length === 0) {
      throw filterError(key, 'expected an object from custom field code to [{ "value": ... }]')
    }
    const templates = this.context.customFields(target)
    const perCode: { code: string; matches: CustomFieldMatch[] }[] = []
    for (const [code, entries] of Object.entries(value)) {
      const template = templates.get(code)
      if (!template) throw filterError(key, `no custom field ${code} applies to ${target.name}`)
      if (template.storageType !== 'SINGLE' || template.fieldType === 'MULTI_VALUE') {
        const kind = template.fieldType === 'MULTI_VALUE' ? 'multi-value' : template.storageType.toLowerCase()
        throw filterError(key, `filtering on the ${kind} custom field ${code} is not supported`)
      }
      const list = Array.isArray(entries) ? entries : [entries]
      if (list.length === 0 || list.length > MAX_LIST)
        throw filterError(key, `${code}: expected between 1 and ${MAX_LIST} entries`)
      const matches = list.map((entry) => {
        if (!isPlainObject(entry) || entry.value === null || entry.value === undefined) {
          throw filterError(key, `${code}: expected entries of the form { "value": ... }`)
        }
        try {
          return this.customFieldMatch(template, entry.value)
        } catch (error) {
          if (error instanceof ValueProblem) throw filterError(key, `${code} (${template.fieldType}): ${error.message}`)
          throw error
        }
      })
      perCode.push({ code, matches })
    }
    return this.onPath(hops, (relations) =>
      combine(
        'and',
        perCode.map(({ code, matches }) =>
          combine(
            'or',
            matches.map((match) => ({ kind: 'customField', relations, code, match })),
          ),
        ),
      ),
    )
  }

  private customFieldMatch(template: CustomFieldTemplate, raw: unknown): CustomFieldMatch {
    switch (template.fieldType) {
      case 'DATE': {
        // Custom field dates are stored as text (yyyy-MM-dd…); an instant is matched by its day in the tenant time zone.
        const v = temporalValue(raw)
        if (v.kind === 'day') return { type: 'date', day: v.day }
        if (v.kind === 'localDateTime') return { type: 'date', day: v.text.slice(0, 10) }
        if (v.kind === 'instant') return { type: 'dateOfInstant', iso: v.iso }
        throw new ValueProblem('expected a date')
      }
      case 'LONG': {
        const v = valueFor('long', raw)
        return { type: 'number', text: (v as { text: string }).text }
      }
      case 'DOUBLE':
        return { type: 'number', text: decimalText(raw) }
      case 'BOOLEAN': {
        const v = valueFor('boolean', raw)
        return { type: 'boolean', value: (v as { value: boolean }).value }
      }
      case 'ENTITY':
      case 'CHILD_ENTITY': {
        // The value names a record of the field's declared entity by its code, compared ignoring case like every
        // other equality; a classname other than the declared entity's can match nothing and is refused.
        const declared = template.entityClazz ? this.context.registry.find(template.entityClazz) : undefined
        const classNames = declared ? [declared.fullName, declared.name] : undefined
        if (typeof raw === 'string') return { type: 'entity', code: raw, classNames: undefined }
        if (!isPlainObject(raw) || typeof raw.code !== 'string')
          throw new ValueProblem('expected a code or { "code", "classname" }')
        const className = raw.classname ?? raw.className
        if (className === undefined || className === null)
          return { type: 'entity', code: raw.code, classNames: undefined }
        if (typeof className !== 'string') throw new ValueProblem('classname must be a string')
        const entity = this.context.registry.find(className)
        if (declared && entity?.name !== declared.name)
          throw new ValueProblem(`classname ${className} is not ${declared.fullName}, the entity of this field`)
        return {
          type: 'entity',
          code: raw.code,
          classNames: entity ? [entity.fullName, entity.name] : (classNames ?? [className]),
        }
      }
      default: {
        const text = scalarText(raw)
        const like = text.includes('*')
        return { type: 'text', text: like ? wildcardPattern(text) : text, like }
      }
    }
  }

  private prefix(entity: EntityDef, key: string, prefix: string): { hops: Hop[]; target: EntityDef } {
    if (prefix === '') return { hops: [], target: entity }
    const walked = this.walk(entity, key, prefix)
    if (walked.end.kind !== 'relation') throw filterError(key, `${prefix} is a field, not a relation`)
    const { relation, target } = walked.end
    return { hops: [...walked.hops, { relation, from: walked.end.entity, to: target }], target }
  }

  private walk(entity: EntityDef, key: string, path: string) {
    try {
      return walkPath(this.context.registry, entity, path)
    } catch (error) {
      if (error instanceof PathProblem) throw filterError(key, error.message)
      throw error
    }
  }

  private rawSql(key: string, value: unknown): Condition {
    return { kind: 'sql', key, ...this.sqlText(key, value, 'condition') }
  }

  private sqlText(
    key: string,
    value: unknown,
    kind: 'condition' | 'select',
  ): { text: string; entities: readonly string[] } {
    if (!this.context.allowSql)
      throw new AppError('FORBIDDEN', `The filter ${key} runs raw SQL and needs the role queryExpert`)
    if (typeof value !== 'string') throw filterError(key, 'expected SQL text')
    const vetted = vetSqlFragment(this.context.registry, value, kind)
    if ('problem' in vetted) throw filterError(key, vetted.problem)
    this.usesSql = true
    return { text: value, entities: vetted.entities }
  }
}

interface FieldWalk {
  hops: readonly Hop[]
  field: string
  type: FieldType
}

function notEqual(equal: Condition): Condition {
  if (equal.kind === 'compare' && equal.op === '=') return { ...equal, op: '<>' }
  return negate(equal)
}

/** From fromRange: any value stands for the start of its day. */
function startOfDay(v: Value): Value {
  if (v.kind === 'localDateTime') return { kind: 'day', day: v.text.slice(0, 10) }
  if (v.kind === 'instant') return { kind: 'startOfDayOf', iso: v.iso }
  return v
}

/** A wall-clock value compared with a date-only field is its day; instants stay for the compiler's zone conversion. */
function dayOfWallClock(v: Value): Value {
  return v.kind === 'localDateTime' ? { kind: 'day', day: v.text.slice(0, 10) } : v
}

function scalarText(value: unknown): string {
  const v = valueFor('string', value)
  return (v as { text: string }).text
}

/**
 * What the client should know when its raw SQL fails to run: `inSqlList` on a relation compares the related
 * record's code (its wire identity) with the sub-select's values, so a sub-select returning ids cannot match.
 */
export function rawSqlHints(registry: EntityRegistry, entity: EntityDef, filters: Record<string, unknown>): string[] {
  const hints: string[] = []
  const visit = (object: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(object)) {
      if (isPlainObject(value)) visit(value)
      const path = /^\s*inSqlList\s+(\S+)\s*$/i.exec(key)?.[1]
      if (!path) continue
      try {
        const walked = walkPath(registry, entity, path)
        if (walked.end.kind === 'relation' && walked.end.target.codeField) {
          const name = walked.end.relation.name
          hints.push(
            `inSqlList ${path} compares the ${name}'s code with the sub-select's values (use ${path}.id to compare ids)`,
          )
        }
      } catch {
        // A bad path was refused before the statement ran.
      }
    }
  }
  visit(filters)
  return hints
}

export function filterError(key: string, message: string): AppError {
  return new AppError('INVALID_FILTER', `filters: '${key}': ${message}`, {
    details: [{ field: `filters.${key}`, message }],
  })
}
