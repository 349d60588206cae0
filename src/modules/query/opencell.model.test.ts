import { describe, expect, it } from 'vitest'
import { registry } from '../../kernel/model/index.ts'
import { fullTextFields, fullTextWords, MAX_DESCRIBE_DEPTH, opencellFieldMap } from './opencell.model.ts'

const everyone = () => true
const depthOf = (map: Record<string, { entityDetails?: Record<string, unknown> }>): number => {
  let deepest = 0
  for (const field of Object.values(map)) {
    if (field.entityDetails) deepest = Math.max(deepest, 1 + depthOf(field.entityDetails as typeof map))
  }
  return deepest
}

describe("Opencell's field map", () => {
  const customer = registry.get('Customer')

  it('describes fields as isEntity "false" and relations as "true", keys sorted', () => {
    const map = opencellFieldMap(registry, customer, { depth: 0, filter: undefined, readable: everyone })
    expect(map.name).toEqual({
      fullQualifiedTypeName: 'class java.lang.String',
      shortTypeName: 'String',
      isEntity: 'false',
      type: 'string',
    })
    expect(map.id?.shortTypeName).toBe('Long')
    expect(map.seller).toEqual({
      fullQualifiedTypeName: 'class org.obol.model.admin.Seller',
      shortTypeName: 'Seller',
      isEntity: 'true',
      type: 'manyToOne',
      entityName: 'Seller',
    })
    expect(map.customerAccounts).toMatchObject({ shortTypeName: 'List', isEntity: 'true', type: 'oneToMany' })
    expect(Object.keys(map)).toEqual([...Object.keys(map)].sort())
  })

  it('describes related entities depth levels down, at most MAX_DESCRIBE_DEPTH, never back to the parent', () => {
    for (const depth of [0, 1, 2]) {
      expect(depthOf(opencellFieldMap(registry, customer, { depth, filter: undefined, readable: everyone }))).toBe(
        depth,
      )
    }
    const deepest = opencellFieldMap(registry, customer, { depth: 99, filter: undefined, readable: everyone })
    expect(depthOf(deepest)).toBe(MAX_DESCRIBE_DEPTH)
    // customer → customerAccounts → customer is not described again.
    const accounts = opencellFieldMap(registry, customer, { depth: 2, filter: undefined, readable: everyone })
      .customerAccounts?.entityDetails
    expect(accounts?.customer?.entityDetails).toBeUndefined()
    expect(accounts?.customer?.isEntity).toBe('true')
  })

  it('describes further only the entities the caller may read', () => {
    const map = opencellFieldMap(registry, customer, {
      depth: 1,
      filter: undefined,
      readable: (entity) => entity.name !== 'Seller',
    })
    expect(map.seller?.isEntity).toBe('true')
    expect(map.seller?.entityDetails).toBeUndefined()
    expect(map.customerAccounts?.entityDetails).toBeDefined()
  })

  it('filter keeps the names holding it in any case, and the relations leading to one', () => {
    const map = opencellFieldMap(registry, customer, { depth: 1, filter: 'DESCRIPTION', readable: everyone })
    expect(map.description).toBeDefined()
    expect(map.code).toBeUndefined()
    expect(Object.keys(map.seller?.entityDetails ?? {})).toEqual(['description'])
    const byName = opencellFieldMap(registry, customer, { depth: 1, filter: 'seller', readable: everyone })
    expect(Object.keys(byName)).toEqual(['seller'])
    // A relation named by the filter is described whole.
    expect(byName.seller?.entityDetails?.code).toBeDefined()
  })
})

describe('fullTextFilter', () => {
  it('searches the free-text fields: not enumerations, identifiers nor audit names', () => {
    expect(fullTextFields(registry.get('WalletOperation'))).toEqual(['code', 'description', 'explanation'])
    const customerFields = fullTextFields(registry.get('Customer'))
    expect(customerFields).toEqual(expect.arrayContaining(['code', 'description', 'name', 'email']))
    expect(customerFields).not.toContain('creator')
    expect(customerFields).not.toContain('id')
  })

  it('splits the text into words on any white space', () => {
    expect(fullTextWords('  Acme\trocket\n works ')).toEqual(['Acme', 'rocket', 'works'])
    expect(fullTextWords('   ')).toEqual([])
  })
})
