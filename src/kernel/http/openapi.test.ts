import { describe, expect, it } from 'vitest'
import { operationIdOf, singular } from './openapi.ts'

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
