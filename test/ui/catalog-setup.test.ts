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
  })
})
