import { describe, expect, it } from 'vitest'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// The visual builder of saved report queries in Chromium: fields, filters, sort and grouping into an advancedQuery.
const app = useUiApp()

const ADVANCED_QUERY = {
  genericFields: ['seller.code', 'COUNT(id)'],
  filters: { code: 'CUST_00*' },
  sortBy: 'seller.code',
  sortOrder: 'DESCENDING',
  groupBy: ['seller.code'],
}

describe('the report query builder', () => {
  it('builds fields, a filter, a sort and grouping into the advancedQuery, previews, saves, runs and reopens it', async () => {
    const page = await app.loggedIn('reports')
    await page.getByRole('button', { name: 'New visual query' }).click()
    const builder = page.getByRole('form', { name: 'Visual query builder' })
    await builder.getByLabel('Query code').fill('UI_CUSTOMERS_PER_SELLER')
    await builder.getByLabel('Query description').fill('Customers 001 to 009 per seller')
    await builder.getByLabel('Tags (comma list)').fill('accounts, ui')
    await builder.getByLabel('Entity').selectOption('Customer')

    await builder.getByRole('button', { name: 'Add a field' }).click()
    await builder.getByRole('button', { name: 'Add a field' }).click()
    await expect
      .poll(() => builder.getByLabel('Field 1', { exact: true }).locator('option').count())
      .toBeGreaterThan(10)
    await builder.getByLabel('Field 1', { exact: true }).selectOption('seller.code')
    await builder.getByLabel('Field 2 function').selectOption('COUNT')
    await builder.getByLabel('Field 2', { exact: true }).selectOption('id')
    await builder.getByLabel('Group rows by the fields without a function').check()
    await builder.getByRole('button', { name: 'Add a filter' }).click()
    await builder.getByLabel('Filter 1 field').selectOption('code')
    await builder.getByLabel('Filter 1 value').fill('CUST_00*')
    await builder.getByRole('button', { name: 'Add a sort' }).click()
    await builder.getByLabel('Sort 1 field').selectOption('seller.code')
    await builder.getByLabel('Sort 1 order').selectOption('DESCENDING')
    await expect
      .poll(async () => JSON.parse((await page.getByTestId('advanced-query').textContent())!) as unknown)
      .toEqual(ADVANCED_QUERY)

    await builder.getByRole('button', { name: 'Preview rows' }).click()
    await expect.poll(() => builder.getByTestId('row-count').textContent()).toBe('1 row')
    await expect.poll(() => builder.locator('.grid tbody tr').first().textContent()).toBe('MAIN9')
    await screenshots(page, 'reports-builder')

    await builder.getByRole('button', { name: 'Save query' }).click()
    await expect.poll(() => builder.getByRole('status').textContent()).toBe('Saved UI_CUSTOMERS_PER_SELLER.')
    const stored = await app.t.request('GET', '/api/v1/reportQueries/UI_CUSTOMERS_PER_SELLER')
    expect([stored.status, stored.body.queryType, stored.body.visibility, stored.body.tags]).toEqual([
      200,
      'VISUAL',
      'PRIVATE',
      ['accounts', 'ui'],
    ])
    expect(stored.body.advancedQuery).toEqual(ADVANCED_QUERY)

    await builder.getByRole('button', { name: 'Close the builder' }).click()
    const row = page.locator('tr', { hasText: 'UI_CUSTOMERS_PER_SELLER' })
    await expect.poll(() => row.textContent()).toContain('Customers 001 to 009 per seller')
    await page.getByRole('button', { name: 'Run UI_CUSTOMERS_PER_SELLER' }).click()
    await expect.poll(() => page.getByTestId('row-count').last().textContent()).toBe('1 row')

    // Reopened in the builder, every part comes back as it was saved.
    await page.getByRole('button', { name: 'Edit UI_CUSTOMERS_PER_SELLER' }).click()
    const reopened = page.getByRole('form', { name: 'Visual query builder' })
    await expect.poll(() => reopened.getByLabel('Sort 1 order').inputValue()).toBe('DESCENDING')
    await expect
      .poll(async () => JSON.parse((await page.getByTestId('advanced-query').textContent())!) as unknown)
      .toEqual(ADVANCED_QUERY)
    expect(app.ui.problems).toEqual([])
  })
})
