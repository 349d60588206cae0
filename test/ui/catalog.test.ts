import { describe, expect, it } from 'vitest'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// The catalog in Chromium: pricing versions on a timeline, a matrix price published then seen in an order preview,
// a FLAT price and a formula checked by the API, and offers moved along their allowed transitions only.
const app = useUiApp()

describe('the catalog', () => {
  it('publishes a matrix price after confirmation; the timeline closes the old version; an order preview uses it', async () => {
    const page = await app.loggedIn('catalog')
    await page.getByRole('combobox', { name: 'Charge' }).selectOption('CH_INTERNET_MONTHLY')
    const timeline = page.getByRole('list', { name: 'Pricing versions' })
    await expect
      .poll(() => timeline.textContent())
      .toContain('PublishedVersion 1 · MATRIX · EUR2020-01-01 → open-ended')
    await page.getByRole('button', { name: 'New draft from version 1' }).click()
    // The rows of version 1, GOLD/EU first; the first row's price changes.
    await expect.poll(() => page.getByLabel('Row 1 tier').inputValue()).toBe('GOLD')
    await expect.poll(() => page.getByLabel('Row 1 region').inputValue()).toBe('EU')
    await page.getByLabel('Row 1 price').fill('61.50')
    await screenshots(page, 'catalog-matrix')
    await page.getByRole('button', { name: 'Publish…' }).click()
    const dialog = page.getByRole('alertdialog')
    await expect.poll(() => dialog.textContent()).toContain('Version 1 closes that day')
    await screenshots(page, 'catalog-publish-confirm')
    // The confirmation has the focus: Enter publishes.
    await page.keyboard.press('Enter')
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(/^Published version 2 from \d{4}-\d\d-\d\d\.$/)
    await expect
      .poll(() => timeline.locator('li').first().textContent())
      .toMatch(/^ClosedVersion 1 · MATRIX · EUR2020-01-01 → \d{4}-\d\d-\d\d · 7 rows$/)
    await expect
      .poll(() => timeline.locator('li').nth(1).textContent())
      .toMatch(/^PublishedVersion 2 · MATRIX · EUR\d{4}-\d\d-\d\d → open-ended · 7 rows$/)
    await screenshots(page, 'catalog-published')
    expect(app.ui.problems).toEqual([])

    await page.goto(`${app.base}/ui/order`)
    await page.getByLabel('Billing account').selectOption('BA_001')
    await page.getByLabel('Offer').selectOption('OF_INTERNET')
    await page.getByLabel('Service tier').selectOption('GOLD')
    await page.getByLabel('Region').selectOption('EU')
    const monthly = page
      .getByRole('region', { name: 'Rated lines' })
      .locator('tr', { hasText: 'Internet access, monthly' })
    await expect.poll(() => monthly.textContent()).toContain('61.5')
    expect(app.ui.problems).toEqual([])
  })

  it('edits a FLAT price and checks a formula with the API as it is typed; discards the drafts', async () => {
    const page = await app.loggedIn('catalog')
    await page.getByRole('combobox', { name: 'Charge' }).selectOption('CH_SETUP_FEE')
    await page.getByRole('button', { name: /^New draft from version/ }).click()
    await page.getByLabel('Unit price (EUR)').fill('55.00')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft saved.')
    const timeline = page.getByRole('list', { name: 'Pricing versions' })
    await expect.poll(() => timeline.textContent()).toContain('DraftVersion 2 · FLAT · EUR')
    await expect.poll(() => timeline.textContent()).toContain('price 55')
    await screenshots(page, 'catalog-flat')
    await page.getByRole('button', { name: 'Discard draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft discarded.')

    await page.getByRole('combobox', { name: 'Charge' }).selectOption('CH_DATA_USAGE')
    await page.getByRole('button', { name: /^New draft from version/ }).click()
    const formula = page.getByLabel('Price formula')
    await expect.poll(() => formula.inputValue()).toBe('#{quantity > 10240 ? 0.005 : 0.01}')
    await formula.fill('#{quantity > ? 0.005 : 0.01}')
    await expect.poll(() => page.getByRole('alert').textContent()).toContain("unexpected '?' at position 13")
    await screenshots(page, 'catalog-formula-refused')
    app.expectRefused(1)
    await formula.fill('#{quantity > 20480 ? 0.004 : 0.01}')
    await expect
      .poll(() => page.locator('#formula-check').textContent())
      .toBe('The API accepts this formula (draft saved).')
    await expect.poll(() => page.getByRole('alert').count()).toBe(0)
    await page.getByRole('button', { name: 'Discard draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft discarded.')
    expect(app.ui.problems).toEqual([])
  })

  it('shows offers in portal words and offers only the moves the transition table allows', async () => {
    const page = await app.loggedIn('catalog')
    const offers = page.getByRole('region', { name: 'Offers' })
    const next = offers.locator('tr', { hasText: 'OF_INTERNET_NEXT' })
    await expect.poll(() => next.textContent()).toContain('draft (IN_DESIGN)')
    expect(await next.getByRole('button').allTextContents()).toEqual([
      '→ draft (IN_STUDY)',
      '→ draft (IN_TEST)',
      '→ retired (REJECTED)',
    ])
    const active = offers.locator('tr', { hasText: 'Fibre internet' }).first()
    expect(await active.getByRole('button').allTextContents()).toEqual(['→ live (LAUNCHED)', '→ retired (RETIRED)'])
    await screenshots(page, 'catalog-offers')
    await page.getByRole('button', { name: 'Move OF_INTERNET_NEXT to draft (IN_TEST)' }).click()
    await page.getByRole('button', { name: 'Move OF_INTERNET_NEXT to ready (ACTIVE)' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('OF_INTERNET_NEXT is now ready (ACTIVE).')
    await expect.poll(() => next.textContent()).toContain('ready (ACTIVE)')
    const stored = await app.t.request('GET', '/api/v1/offerTemplates/OF_INTERNET_NEXT')
    expect(stored.body.lifeCycleStatus).toBe('ACTIVE')
    expect(app.ui.problems).toEqual([])
  })
})
