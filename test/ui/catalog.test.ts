import { describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { screenshots, WIDTHS } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { pick } from './pickers.ts'

// The catalog in Chromium: pricing versions with their states said as they are and a published matrix's rows, a
// matrix price published then seen in an order preview, prices and formulas checked by the API only when the draft
// is saved (a negative price refused in words), offers moved in the portal's words, and a charge, a product and an
// offer created, priced and published from nothing.
const app = useUiApp()

/** At 390 px the page is no wider than the window (tables scroll inside their own box); run in the page, as text. */
async function fitsAPhone(page: Page): Promise<void> {
  await page.setViewportSize(WIDTHS.phone)
  await expect.poll(() => page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
  await page.setViewportSize(WIDTHS.desktop)
}

/** Picks an option of a Mantine select by its label and the start of the option's text. */
async function choose(page: Page, label: string, option: RegExp): Promise<void> {
  await page.getByRole('combobox', { name: label }).first().click()
  await page.getByRole('option', { name: option }).first().click()
}

/** No backend code where a person reads: statuses and moves are in words. */
async function noInternalCodes(page: Page): Promise<void> {
  const text = (await page.locator('main').textContent()) ?? ''
  expect(text).not.toMatch(/IN_STUDY|IN_DESIGN|IN_TEST|LAUNCHED|REJECTED|OBSOLETE|ONESHOT/)
}

/** What a locator shows, spaces as typed (money is written with a no-break space after its currency). */
const shown = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ')

/** The focused element's name (roughly) and whether its focus is drawn; run in the page, as text. */
const FOCUSED = `(() => {
  const el = document.activeElement
  if (!el || el === document.body) return { body: true, id: 'body', name: '', visible: true }
  const labelled = el.getAttribute('aria-labelledby')
  const name = (
    el.getAttribute('aria-label') ??
    (labelled ? document.getElementById(labelled)?.textContent : undefined) ??
    el.labels?.[0]?.textContent ??
    el.textContent ??
    ''
  ).trim()
  const style = getComputedStyle(el)
  const visible = (style.outlineStyle !== 'none' && style.outlineWidth !== '0px') || style.boxShadow !== 'none'
  const path = []
  for (let node = el; node && node !== document.body; node = node.parentElement)
    path.unshift(node.tagName + [...(node.parentElement?.children ?? [])].indexOf(node))
  return { body: false, id: path.join('>'), name, visible }
})()`

const versions = (page: Page) => page.getByRole('list', { name: 'Pricing versions' })

// Each test walks many screens; a loaded machine needs more than the default 30 s for that (no timed assertion).
describe('the catalog', { timeout: 180_000 }, () => {
  it('publishes a matrix price after confirmation; versions say their state and show their rows; a preview uses it', async () => {
    const page = await app.loggedIn('catalog')
    await page.waitForURL(/\/ui\/catalog\/charges$/)
    await page.getByRole('link', { name: 'CH_INTERNET_MONTHLY' }).click()
    const first = versions(page).locator('li').first()
    await expect.poll(() => first.textContent()).toContain('Version 1In force, open-ended')
    // A published matrix shows its rows, not their count.
    const rows = page.getByRole('table', { name: 'Rows of version 1' })
    await expect.poll(() => rows.locator('tbody tr').count()).toBe(7)
    expect(await shown(rows.locator('tbody tr').first())).toBe('GOLDEUEUR 59.99')
    expect(await shown(rows.locator('tbody tr').nth(2))).toBe('GOLDanyEUR 69.99')
    await page.getByRole('button', { name: 'New draft from version 1' }).click()
    // The rows of version 1, GOLD/EU first; the first row's price changes.
    await expect.poll(() => page.getByRole('combobox', { name: 'Row 1 tier' }).inputValue()).toBe('GOLD')
    await expect.poll(() => page.getByRole('combobox', { name: 'Row 1 region' }).inputValue()).toBe('EU')
    await page.getByLabel('Row 1 price').fill('61.50')
    await screenshots(page, 'catalog-matrix')
    await fitsAPhone(page)
    await page.getByRole('button', { name: 'Publish…' }).click()
    const dialog = page.getByRole('alertdialog')
    await expect.poll(() => dialog.textContent()).toContain('Version 1 closes that day')
    await screenshots(page, 'catalog-publish-confirm')
    // The confirmation has the focus: Enter publishes.
    await page.keyboard.press('Enter')
    // Saving, publishing and reading the versions again: three requests, slow on a loaded machine.
    await expect
      .poll(() => page.getByRole('status').textContent(), { timeout: 20_000 })
      .toMatch(/^Published version 2 from \d{4}-\d\d-\d\d\.$/)
    // Newest first: version 2 in force with its rows, version 1 ended today (its rows behind a button).
    await expect
      .poll(() => versions(page).locator('li').first().textContent())
      .toMatch(/^Version 2In force, open-ended/)
    await expect.poll(() => versions(page).locator('li').nth(1).textContent()).toMatch(/^Version 1Ended \d+ \w+ \d{4}/)
    expect(await shown(page.getByRole('table', { name: 'Rows of version 2' }).locator('tbody tr').first())).toBe(
      'GOLDEUEUR 61.50',
    )
    await page.getByRole('button', { name: 'Show the 7 rows' }).click()
    await expect.poll(() => page.getByRole('table', { name: 'Rows of version 1' }).locator('tbody tr').count()).toBe(7)
    await screenshots(page, 'catalog-published')
    expect(app.ui.problems).toEqual([])

    await page.goto(`${app.base}/ui/order`)
    await pick(page, 'Billing account', 'BA_001', /^BA_001/)
    await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
    await pick(page, 'Service tier', '', 'GOLD')
    await pick(page, 'Region', '', 'EU')
    const monthly = page
      .getByRole('region', { name: 'Rated lines' })
      .locator('tr', { hasText: 'Internet access, monthly' })
    await expect.poll(() => monthly.textContent()).toContain('61.5')
    // On a loaded machine the order screen may preview between two choices, while the region is still missing: the
    // API refuses that one (400). Anything else is a problem.
    const others = app.ui.problems.filter((p) => !/status of 400 .*\/api\/v1\/orders\/preview/.test(p))
    expect(others).toEqual([])
  })

  it('saves a price only when asked: a negative price and a bad formula are refused in words, nothing saved while typing', async () => {
    const page = await app.loggedIn('catalog/charges/CH_SETUP_FEE')
    // Every draft the page sends: typing sends none, each Save one.
    const saves: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().endsWith('/pricing/draft')) saves.push(request.url())
    })
    await page.getByRole('button', { name: /^New draft from version/ }).click()
    const price = page.getByLabel('Unit price (EUR)')
    await price.fill('-5')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await expect
      .poll(() => page.getByRole('form', { name: 'Draft pricing version' }).textContent())
      .toContain('A price cannot be below zero (a reduction is a discount plan).')
    await expect.poll(() => price.getAttribute('aria-invalid')).toBe('true')
    app.expectRefused(1)
    await screenshots(page, 'catalog-negative-price')
    expect(await versions(page).textContent()).not.toContain('Draft')
    await price.fill('55.00')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft saved.')
    await expect.poll(() => versions(page).locator('li').first().textContent()).toMatch(/^Version 2Draft, to start/)
    await expect.poll(() => shown(versions(page))).toContain('EUR 55.00')
    await screenshots(page, 'catalog-flat')
    await page.getByRole('button', { name: 'Discard draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft discarded.')

    await page.goto(`${app.base}/ui/catalog/charges/CH_DATA_USAGE`)
    await page.getByRole('button', { name: /^New draft from version/ }).click()
    const formula = page.getByLabel('Price formula')
    await expect.poll(() => formula.inputValue()).toBe('#{quantity > 10240 ? 0.005 : 0.01}')
    saves.length = 0
    await formula.fill('#{quantity > ? 0.005 : 0.01}')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await expect
      .poll(() => page.getByRole('form', { name: 'Draft pricing version' }).textContent())
      .toContain("Unexpected '?' at position 13.")
    await screenshots(page, 'catalog-formula-refused')
    // The formula went to the API once, with the click: nothing while it was typed.
    expect(saves).toHaveLength(1)
    expect(await versions(page).textContent()).not.toContain('Draft')
    app.expectRefused(1)
    await formula.fill('#{quantity > 20480 ? 0.004 : 0.01}')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft saved.')
    await expect.poll(() => page.getByRole('alert').count()).toBe(0)
    await page.getByRole('button', { name: 'Discard draft' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft discarded.')
    expect(app.ui.problems).toEqual([])
  })

  it('shows offers in portal words and offers only the moves the transition table allows, in words', async () => {
    const page = await app.loggedIn('catalog/offers')
    const offers = page.getByRole('table', { name: 'Offers' })
    const next = offers.locator('tr', { hasText: 'OF_INTERNET_NEXT' })
    await expect.poll(() => next.textContent()).toContain('draft, in design')
    expect(await next.getByRole('button').allTextContents()).toEqual(['Back to study', 'To test', 'Reject'])
    const active = offers.locator('tr', { hasText: 'Fibre internet' }).first()
    expect(await active.getByRole('button').allTextContents()).toEqual(['Launch', 'Retire'])
    await noInternalCodes(page)
    await screenshots(page, 'catalog-offers')
    await fitsAPhone(page)
    await next.getByRole('button', { name: 'To test' }).click()
    await expect.poll(() => next.textContent()).toContain('draft, in test')
    await next.getByRole('button', { name: 'Make ready' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('OF_INTERNET_NEXT is now ready.')
    await expect.poll(() => next.textContent()).toContain('ready')
    await noInternalCodes(page)
    const stored = await app.t.request('GET', '/api/v1/offerTemplates/OF_INTERNET_NEXT')
    expect(stored.body.lifeCycleStatus).toBe('ACTIVE')
    expect(app.ui.problems).toEqual([])
  })

  it('creates a charge, a product and an offer from nothing, prices and publishes them, at both widths', async () => {
    // The charge: recurring, with the fields a recurring charge needs.
    const page = await app.loggedIn('catalog/charges')
    await page.getByRole('link', { name: 'New charge' }).click()
    await page.getByRole('textbox', { name: 'Code' }).fill('CH_UI_SUPPORT')
    await page.locator('label', { hasText: /^Recurring$/ }).click()
    await page.getByRole('textbox', { name: 'Description' }).fill('Phone support, monthly')
    await choose(page, 'Invoice sub-category', /^SUB_RECURRING/)
    await choose(page, 'Tax class', /^NORMAL/)
    // Without its calendar, a recurring charge is refused, the field named.
    await page.getByRole('button', { name: 'Create the charge' }).click()
    await expect
      .poll(() => page.getByRole('form', { name: 'New charge' }).textContent())
      .toContain('The calendar is required for a RECURRING charge.')
    app.expectRefused(1)
    await choose(page, 'Billing calendar', /^MONTHLY/)
    await screenshots(page, 'catalog-new-charge')
    await page.getByRole('button', { name: 'Create the charge' }).click()
    await page.waitForURL(/\/ui\/catalog\/charges\/CH_UI_SUPPORT$/)
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('CH_UI_SUPPORT')
    await expect.poll(() => versions(page).count()).toBe(0)
    await page.getByRole('button', { name: 'New draft' }).click()
    await page.getByLabel('Unit price (EUR)').fill('12.50')
    await page.getByRole('button', { name: 'Publish…' }).click()
    await page.getByRole('button', { name: 'Publish now' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/^Published version 1 from /)
    await expect.poll(() => versions(page).textContent()).toContain('In force, open-ended')
    await expect.poll(() => shown(versions(page))).toContain('Unit price EUR 12.50')
    await screenshots(page, 'catalog-charge-priced')
    await fitsAPhone(page)

    // The product: version 1 links the charge and an attribute, then is published.
    await page.goto(`${app.base}/ui/catalog/products/new`)
    await page.getByRole('textbox', { name: 'Code' }).fill('PR_UI_SUPPORT')
    await page.getByRole('textbox', { name: 'Name' }).fill('Phone support')
    await page.getByRole('button', { name: 'Create the product' }).click()
    await page.waitForURL(/\/ui\/catalog\/products\/PR_UI_SUPPORT$/)
    const version = page.getByRole('listitem', { name: 'Version 1' })
    await expect.poll(() => version.textContent()).toContain('Draft')
    await choose(page, 'A charge to link', /^CH_UI_SUPPORT/)
    await page.getByRole('button', { name: 'Link the charge' }).click()
    await expect.poll(() => version.textContent()).toContain('CH_UI_SUPPORT · Recurring')
    await choose(page, 'An attribute to link', /^REGION/)
    await page.getByRole('button', { name: 'Link the attribute' }).click()
    await expect.poll(() => version.textContent()).toContain('REGION · Region')
    await screenshots(page, 'catalog-product-draft')
    await fitsAPhone(page)
    await page.getByRole('button', { name: 'Publish version 1…' }).click()
    await page.getByRole('button', { name: 'Publish now' }).click()
    await expect.poll(() => version.textContent()).toContain('In force, open-ended')
    expect(await version.getByRole('button', { name: /^Unlink/ }).count()).toBe(0)
    await screenshots(page, 'catalog-product-published')

    // The offer: the product, a discount plan, made ready in two moves.
    await page.goto(`${app.base}/ui/catalog/offers/new`)
    await page.getByRole('textbox', { name: 'Code' }).fill('OF_UI_SUPPORT')
    await page.getByRole('textbox', { name: 'Name' }).fill('Support plan')
    await choose(page, 'Product to add', /^PR_UI_SUPPORT/)
    await page.getByRole('button', { name: 'Add the product' }).click()
    await page.getByRole('combobox', { name: 'Discount plans orders may choose' }).click()
    await page.getByRole('option', { name: /^DP_WELCOME_10/ }).click()
    await page.keyboard.press('Escape')
    await screenshots(page, 'catalog-new-offer')
    await page.getByRole('button', { name: 'Create the offer' }).click()
    await page.waitForURL(/\/ui\/catalog\/offers\/OF_UI_SUPPORT$/)
    await expect.poll(() => page.locator('.offer-status').first().textContent()).toBe('draft, in design')
    await page.getByRole('button', { name: 'To test' }).click()
    await page.getByRole('button', { name: 'Make ready' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('OF_UI_SUPPORT is now ready.')
    await noInternalCodes(page)
    await screenshots(page, 'catalog-offer-ready')
    await fitsAPhone(page)

    const offer = await app.t.request('GET', '/api/v1/offerTemplates/OF_UI_SUPPORT')
    expect(offer.body).toMatchObject({
      lifeCycleStatus: 'ACTIVE',
      name: 'Support plan',
      discountPlans: ['DP_WELCOME_10'],
      offerComponents: [expect.objectContaining({ productCode: 'PR_UI_SUPPORT', mandatory: true, defaultQuantity: 1 })],
    })
    const product = await app.t.request('GET', '/api/v1/products/PR_UI_SUPPORT/versions/1')
    expect(product.body).toMatchObject({ status: 'PUBLISHED', charges: ['CH_UI_SUPPORT'], attributes: ['REGION'] })
    const pricing = await app.t.request('GET', '/api/v1/charges/CH_UI_SUPPORT/pricing')
    expect(pricing.body.pricingVersions).toEqual([
      expect.objectContaining({ status: 'PUBLISHED', pricingModel: 'FLAT', price: 12.5 }),
    ])
    expect(app.ui.problems).toEqual([])
  })

  it('keyboard only: every Tab stop of the catalog screens has a name and a visible focus', async () => {
    const page = await app.loggedIn('catalog/charges')
    const missing: string[] = []
    for (const screen of [
      'catalog/charges/CH_INTERNET_MONTHLY',
      'catalog/products/PR_INTERNET',
      'catalog/offers/OF_INTERNET',
      'catalog/attributes/REGION',
      'catalog/discount-plans/DP_WELCOME_10',
    ]) {
      await page.goto(`${app.base}/ui/${screen}`)
      await page.getByRole('heading', { level: 1 }).first().waitFor()
      await page.locator('body').focus()
      const seen = new Set<string>()
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab')
        const stop = await page.evaluate<{ body: boolean; id: string; name: string; visible: boolean }>(FOCUSED)
        if (stop.body || seen.has(stop.id)) break
        seen.add(stop.id)
        if (stop.name === '' || !stop.visible) missing.push(`${screen}: ${stop.id} ${stop.name || '(no name)'}`)
      }
    }
    expect(missing).toEqual([])
    expect(app.ui.problems).toEqual([])
  })
})
