import { describe, expect, it } from 'vitest'
import { hoistNamedSchemas, operationIdOf, singular } from './openapi.ts'

describe('operationIdOf', () => {
  it.each([
    ['GET', '/api/v1/customers', 'listCustomers'],
    ['GET', '/api/v1/customers/:code', 'getCustomer'],
    ['POST', '/api/v1/customers', 'createCustomer'],
    ['PUT', '/api/v1/taxClasses/:code', 'updateTaxClass'],
    ['DELETE', '/api/v1/unitsOfMeasure/:code', 'deleteUnitOfMeasure'],
    ['GET', '/api/v1/jobs/:code/executions', 'listJobExecutions'],
    ['POST', '/api/v1/jobs/:code/run', 'runJob'],
    ['POST', '/api/v1/orders/preview', 'previewOrder'],
    ['GET', '/api/v1/reportQueries/:code/executions/:executionId', 'getReportQueryExecution'],
    ['GET', '/health/live', 'getHealthLive'],
  ])('%s %s is %s', (method, url, expected) => {
    expect(operationIdOf(method, url)).toBe(expected)
  })

  it('singularizes camelCase plurals', () => {
    expect(['taxes', 'invoiceCategories', 'taxClasses', 'unitsOfMeasure', 'charges', 'status'].map(singular)).toEqual([
      'tax',
      'invoiceCategory',
      'taxClass',
      'unitOfMeasure',
      'charge',
      'status',
    ])
  })
})

describe('hoistNamedSchemas', () => {
  const media = (schema: object) => ({ content: { 'application/json': { schema } } })
  const named = { title: 'Thing', type: 'object', properties: { a: { type: 'string' } } }

  it('lists a named schema once in components and points at it', () => {
    const document = {
      paths: {
        '/a': { get: { responses: { 200: media(named) } } },
        '/b': { get: { responses: { 200: media({ type: 'array', items: named }) } } },
      },
      components: { schemas: {} },
    }
    const hoisted = hoistNamedSchemas(document)
    expect(hoisted.components.schemas).toEqual({ Thing: named })
    expect(hoisted.paths['/a'].get.responses[200].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Thing',
    })
    expect(hoisted.paths['/b'].get.responses[200].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Thing' },
    })
  })

  it('refuses two different schemas of one name', () => {
    const other = { ...named, properties: { b: { type: 'integer' } } }
    const document = {
      paths: { '/a': { get: { responses: { 200: media(named), 201: media(other) } } } },
      components: { schemas: {} },
    }
    expect(() => hoistNamedSchemas(document)).toThrow(/Two different schemas are named Thing/)
  })
})
