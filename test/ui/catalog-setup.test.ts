import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { pageWidth, screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// Building a catalog's first parts in Chromium: an attribute (a list of values) and a discount plan (with its items)
// created from nothing at 1440 px, edited, a bad value refused with its field named, both fitting a phone, and a
// user without the catalog's manage roles told the server's refusal in a sentence.
const app = useUiApp()
const WIDE = { width: 1440, height: 900 }

/** At 390 px the page is no wider than the window; then back to 1440 px. */
async function fitsAPhone(page: Page): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 })
  await expect.poll(() => pageWidth(page)).toBeLessThanOrEqual(390)
  await page.setViewportSize(WIDE)
}

/** Picks an option of a Mantine select by its label and the start of the option's text. */
async function choose(page: Page, label: string, option: RegExp): Promise<void> {
  await page.getByRole('combobox', { name: label }).first().click()
  await page.getByRole('option', { name: option }).first().click()
}

/** No backend code where a person reads: types and statuses are in words. */
async function noInternalCodes(page: Page): Promise<void> {
  const text = (await page.locator('main').textContent()) ?? ''
  expect(text).not.toMatch(/\b(LIST_NUMERIC|LIST_TEXT|PERCENTAGE|FIXED|DRAFT|IN_USE|ACTIVE)\b/)
}

describe('setting up the catalog', { timeout: 180_000 }, () => {
  it('creates an attribute from nothing, refuses a value that is not a number with the field named, edits it', async () => {
    const page = await app.loggedIn('catalog/attributes')
    await page.setViewportSize(WIDE)
    const list = page.getByRole('table', { name: 'Attributes' })
    await expect.poll(() => list.textContent()).toContain('REGION')
    // The search narrows the list as it is typed; a search matching nothing says so.
    await page.getByRole('searchbox', { name: 'Search the attributes' }).fill('tier')
    await expect.poll(() => list.locator('tbody tr').count()).toBe(1)
    await page.getByRole('searchbox', { name: 'Search the attributes' }).fill('nothing like it')
    await expect.poll(() => page.locator('main').textContent()).toContain('No attribute matches “nothing like it”.')
    await page.getByRole('link', { name: 'New attribute' }).click()

    await page.getByRole('textbox', { name: 'Code' }).fill('SPEED')
    await page.getByRole('textbox', { name: 'Description' }).fill('Line speed (Mbit/s)')
    await choose(page, 'Type', /^One of a list of numbers$/)
    await page.getByRole('textbox', { name: 'Allowed value 1' }).fill('100')
    await page.getByRole('button', { name: 'Add a value' }).click()
    await page.getByRole('textbox', { name: 'Allowed value 2' }).fill('fast')
    await page.getByRole('button', { name: 'Create the attribute' }).click()
    const form = page.getByRole('form', { name: 'New attribute' })
    await expect.poll(() => form.textContent()).toContain('Expected a number for a LIST_NUMERIC attribute.')
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Allowed value 2' }).getAttribute('aria-invalid'))
      .toBe('true')
    expect(await page.getByRole('textbox', { name: 'Allowed value 1' }).getAttribute('aria-invalid')).not.toBe('true')
    expect(await form.getByRole('alert').textContent()).toBe('Correct the field marked below.')
    app.expectRefused(1)
    await screenshots(page, 'catalog-setup-attribute-refused')
    await page.setViewportSize(WIDE)
    await page.getByRole('textbox', { name: 'Allowed value 2' }).fill('1000')
    await page.getByRole('button', { name: 'Create the attribute' }).click()
    await page.waitForURL(/\/ui\/catalog\/attributes\/SPEED$/)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('SPEED')
    expect(await page.locator('main').textContent()).toContain('One of a list of numbers')

    // Edited: a third speed, a new description.
    await page.getByRole('button', { name: 'Add a value' }).click()
    await page.getByRole('textbox', { name: 'Allowed value 3' }).fill('250')
    await page.getByRole('textbox', { name: 'Description' }).fill('Line speed, Mbit/s')
    await page.getByRole('button', { name: 'Save the attribute' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Attribute saved.')
    await noInternalCodes(page)
    await screenshots(page, 'catalog-setup-attribute')
    await page.setViewportSize(WIDE)
    await fitsAPhone(page)
    const stored = await app.t.request('GET', '/api/v1/attributes/SPEED')
    expect(stored.body).toMatchObject({
      description: 'Line speed, Mbit/s',
      attributeType: 'LIST_NUMERIC',
      allowedValues: ['100', '1000', '250'],
      disabled: false,
    })

    // Back in the list, found by its description.
    await page.getByRole('link', { name: '← Attributes' }).click()
    await page.getByRole('searchbox', { name: 'Search the attributes' }).fill('mbit')
    await expect.poll(() => list.locator('tbody tr').count()).toBe(1)
    expect(await list.locator('tbody tr').first().textContent()).toContain('One of a list of numbers: 100, 1000, 250')
    await fitsAPhone(page)
    expect(app.ui.problems).toEqual([])
  })

  it('creates a discount plan from nothing, gives it items (a percentage too high refused), activates and edits it', async () => {
    const page = await app.loggedIn('catalog/discount-plans')
    await page.setViewportSize(WIDE)
    const list = page.getByRole('table', { name: 'Discount plans' })
    await expect.poll(() => list.textContent()).toContain('DP_WELCOME_10')
    await noInternalCodes(page)
    await page.getByRole('link', { name: 'New discount plan' }).click()

    await page.getByRole('textbox', { name: 'Code' }).fill('DP_SPRING')
    await page.getByRole('textbox', { name: 'Description' }).fill('Spring: 15 % off')
    await choose(page, 'Applies to', /^Offer lines/)
    await page.getByRole('textbox', { name: 'Uses before it is used up' }).fill('500')
    await page.getByRole('button', { name: 'Create the discount plan' }).click()
    await page.waitForURL(/\/ui\/catalog\/discount-plans\/DP_SPRING$/)
    await expect.poll(() => page.locator('.plan-status').first().textContent()).toBe('Draft: orders cannot use it yet')
    await expect.poll(() => page.locator('main').textContent()).toContain('No item yet')

    // A percentage above 100 is refused, the field named.
    const item = page.getByRole('form', { name: 'New item' })
    await item.getByRole('textbox', { name: 'Item code' }).fill('DPI_SPRING')
    await item.getByRole('textbox', { name: 'Percentage off' }).fill('150')
    await choose(page, 'Accounting article of the discount lines', /^ART_DISCOUNT/)
    await item.getByRole('button', { name: 'Add the item' }).click()
    await expect.poll(() => item.textContent()).toContain('Expected a value of at most 100.')
    await expect
      .poll(() => item.getByRole('textbox', { name: 'Percentage off' }).getAttribute('aria-invalid'))
      .toBe('true')
    app.expectRefused(1)
    await screenshots(page, 'catalog-setup-plan-refused')
    await page.setViewportSize(WIDE)
    await item.getByRole('textbox', { name: 'Percentage off' }).fill('15')
    await item.getByRole('button', { name: 'Add the item' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Item DPI_SPRING saved: 15 % off.')
    const items = page.getByRole('table', { name: 'Items of DP_SPRING' })
    await expect.poll(() => items.textContent()).toContain('15 % off')

    // A second item: an amount off, shown as money.
    await item.getByRole('textbox', { name: 'Item code' }).fill('DPI_SPRING_FIXED')
    await page.locator('label', { hasText: /^An amount$/ }).click()
    await item.getByRole('textbox', { name: 'Amount off' }).fill('2.5')
    await choose(page, 'Accounting article of the discount lines', /^ART_DISCOUNT/)
    await item.getByRole('button', { name: 'Add the item' }).click()
    await expect.poll(() => items.locator('tbody tr').count()).toBe(2)
    expect(await items.locator('tr', { hasText: 'DPI_SPRING_FIXED' }).textContent()).toContain('2.50 off')

    // Activated in words.
    await page.getByRole('button', { name: 'Activate: orders may use DP_SPRING' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('DP_SPRING is now active: orders may use it.')
    await expect.poll(() => page.locator('.plan-status').first().textContent()).toBe('Active: orders may use it')

    // Edited: the first item to 20 %, the plan's description and its uses.
    await page.getByRole('button', { name: 'Change item DPI_SPRING', exact: true }).click()
    const changing = page.getByRole('form', { name: 'Item DPI_SPRING', exact: true })
    await changing.getByRole('textbox', { name: 'Percentage off' }).fill('20')
    await changing.getByRole('button', { name: 'Save the item' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Item DPI_SPRING saved: 20 % off.')
    await expect.poll(() => items.locator('tr', { hasText: 'DPI_SPRING' }).first().textContent()).toContain('20 % off')
    const plan = page.getByRole('form', { name: 'Discount plan' })
    await plan.getByRole('textbox', { name: 'Description' }).fill('Spring: 20 % off')
    await plan.getByRole('textbox', { name: 'Uses before it is used up' }).fill('1000')
    await plan.getByRole('button', { name: 'Save the discount plan' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Discount plan saved.')
    await noInternalCodes(page)
    await screenshots(page, 'catalog-setup-plan')
    await page.setViewportSize(WIDE)
    await fitsAPhone(page)

    const stored = await app.t.request('GET', '/api/v1/discountPlans/DP_SPRING')
    expect(stored.body).toMatchObject({
      description: 'Spring: 20 % off',
      discountPlanType: 'OFFER',
      status: 'ACTIVE',
      initialQuantity: 1000,
    })
    const storedItems = await app.t.request('GET', '/api/v1/discountPlans/DP_SPRING/items')
    expect(
      (storedItems.body.items as { code: string; discountPlanItemType: string; discountValue: unknown }[]).map((i) => [
        i.code,
        i.discountPlanItemType,
        String(i.discountValue),
      ]),
    ).toEqual([
      ['DPI_SPRING', 'PERCENTAGE', '20'],
      ['DPI_SPRING_FIXED', 'FIXED', '2.5'],
    ])

    // The list: found by search, its status in words; an offer may now list it.
    await page.getByRole('link', { name: '← Discount plans' }).click()
    await page.getByRole('searchbox', { name: 'Search the discount plans' }).fill('spring')
    await expect.poll(() => list.locator('tbody tr').count()).toBe(1)
    expect(await list.locator('tbody tr').first().textContent()).toContain('Active: orders may use it')
    await screenshots(page, 'catalog-setup-plans')
    await fitsAPhone(page)
    expect(app.ui.problems).toEqual([])
  })

  it("tells a user without the catalog's manage roles the server's refusal in a sentence", async () => {
    const roles = (await app.t.request('GET', '/api/v1/roles')).body.data as { name: string; scope: string | null }[]
    const views = roles.filter((r) => r.scope === 'view').map((r) => r.name)
    expect((await app.t.request('POST', '/api/v1/groups', { name: 'Viewers', roles: views })).status).toBe(201)
    const user = { username: 'catalog.viewer', password: 'viewer-password-0123' }
    expect((await app.t.request('POST', '/api/v1/users', { ...user, groups: ['Viewers'] })).status).toBe(201)
    const page = await app.ui.page()
    await page.setViewportSize(WIDE)
    await page.goto(`${app.base}/`)
    await page.getByLabel('Username').fill(user.username)
    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByTestId('user').waitFor()

    // Reading is allowed; creating is refused by the server, said above the form.
    await page.goto(`${app.base}/ui/catalog/attributes/new`)
    await page.getByRole('textbox', { name: 'Code' }).fill('COLOUR')
    await page.getByRole('textbox', { name: 'Allowed value 1' }).fill('red')
    await page.getByRole('button', { name: 'Create the attribute' }).click()
    const refusal = page.getByRole('form', { name: 'New attribute' }).getByRole('alert')
    await expect.poll(() => refusal.textContent()).toBe('This operation needs the role catalog.products.manage.')
    app.expectRefused(1, '403 (Forbidden)')

    await page.goto(`${app.base}/ui/catalog/discount-plans/new`)
    await page.getByRole('textbox', { name: 'Code' }).fill('DP_NOPE')
    await page.getByRole('button', { name: 'Create the discount plan' }).click()
    const planRefusal = page.getByRole('form', { name: 'New discount plan' }).getByRole('alert')
    await expect.poll(() => planRefusal.textContent()).toBe('This operation needs the role catalog.discounts.manage.')
    await screenshots(page, 'catalog-setup-forbidden')
    app.expectRefused(1, '403 (Forbidden)')
    expect((await app.t.request('GET', '/api/v1/discountPlans/DP_NOPE')).status).toBe(404)
  })
})
