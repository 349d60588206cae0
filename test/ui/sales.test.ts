import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshots, SCREENSHOTS, WIDTHS } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { field, pick, plain } from './pickers.ts'

// Orders and accounts in Chromium on the demo data: an order previewed with its usage line and placed, the order
// list and an order's page, an account found by typing, the hierarchy walked down to a user account's operations.
const app = useUiApp()

/** At 390 px the page fits its width (no horizontal scrolling). */
async function fitsAPhone(page: Page): Promise<void> {
  await page.setViewportSize(WIDTHS.phone)
  await expect.poll(() => page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
  await page.setViewportSize(WIDTHS.desktop)
}

describe('orders', () => {
  it('previews an offer with a usage line with its totals as money, then places it', { timeout: 120_000 }, async () => {
    const page = await app.loggedIn('order')
    await pick(page, 'Billing account', 'ba_004', /^BA_004/)
    await expect.poll(() => field(page, 'User account').inputValue()).toMatch(/^UA_004/)
    await pick(page, 'Offer', 'internet', /^OF_INTERNET ·/)
    // The preview waits for the attributes, and says which.
    await expect
      .poll(() => page.getByTestId('preview-waits').textContent().then(plain))
      .toBe('Choose a value for Service tier (PR_INTERNET), Region (PR_INTERNET) to see the rated lines.')
    await pick(page, 'Service tier', '', 'GOLD')
    await expect
      .poll(() => page.getByTestId('preview-waits').textContent().then(plain))
      .toBe('Choose a value for Region (PR_INTERNET) to see the rated lines.')
    await pick(page, 'Region', '', 'EU')
    const rated = page.getByRole('region', { name: 'Rated lines' })
    const lines = rated.getByRole('table', { name: 'Lines of OF_INTERNET' })
    await expect
      .poll(() => lines.locator('tr', { hasText: 'Internet access, monthly' }).textContent().then(plain))
      .toBe('Internet access, monthlyRecurringEUR 59.99EUR 71.99')
    await expect
      .poll(() => lines.locator('tr', { hasText: 'Data volume' }).textContent().then(plain))
      .toBe('Data volume, per MBUsagewhen usedwhen used')
    // Totals even with the usage line: one-time 49.99, the first month 59.99, data per MB, tax, with tax.
    const totals = rated.getByTestId('totals')
    await expect.poll(() => totals.locator('tr').first().textContent().then(plain)).toBe('One-timeEUR 49.99')
    await expect
      .poll(() => totals.locator('tr', { hasText: 'Recurring per month' }).textContent().then(plain))
      .toContain('EUR 59.99')
    await expect
      .poll(() => totals.locator('tr', { hasText: 'Usage: ' }).textContent().then(plain))
      .toContain('EUR 0.01 per MB')
    await expect
      .poll(() => totals.locator('tr', { hasText: 'Tax' }).first().textContent().then(plain))
      .toBe('TaxEUR 22.00')
    await expect
      .poll(() => totals.locator('tr', { hasText: 'Total with tax' }).textContent().then(plain))
      .toContain('EUR 131.98')
    await screenshots(page, 'sales-order-usage')
    await fitsAPhone(page)

    await page.getByRole('button', { name: 'Place the order' }).click()
    const placed = page.getByRole('region', { name: 'Place the order' }).getByRole('status')
    await expect
      .poll(() => placed.textContent().then(plain))
      .toMatch(/^Order (\S+) placed: VALIDATED; subscription \1-1 \(ACTIVE\)\.$/)
    const code = /^Order (\S+) /.exec(await placed.textContent().then(plain))![1]!
    const stored = await app.t.request('GET', `/api/v1/orders/${code}`)
    expect([stored.status, stored.body.status, stored.body.billingAccountCode]).toEqual([200, 'VALIDATED', 'BA_004'])

    // Its page: the subscription and the wallet operation of the installation fee, as money.
    await placed.getByRole('link', { name: code }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain)).toBe(`Order ${code}`)
    await expect
      .poll(() =>
        page.getByRole('table', { name: 'Subscriptions' }).locator('tbody tr').first().textContent().then(plain),
      )
      .toContain(`${code}-1OF_INTERNETACTIVE`)
    await expect
      .poll(() =>
        page.getByRole('table', { name: 'Wallet operations' }).locator('tbody tr').first().textContent().then(plain),
      )
      .toContain('Installation feeOne-time, at subscriptionOPENEUR 59.99')
    await expect
      .poll(() => page.getByTestId('order-rated').textContent().then(plain))
      .toBe('EUR 49.99 without tax, EUR 59.99 with tax')
    await screenshots(page, 'sales-order-page')
    await fitsAPhone(page)
    expect(app.ui.problems).toEqual([])
  })

  it("the preview's lines and totals are read without scrolling sideways inside their card, at 1440 and 390 px", async () => {
    const page = await app.loggedIn('order')
    await pick(page, 'Billing account', 'BA_005', /^BA_005/)
    await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
    await pick(page, 'Service tier', '', 'GOLD')
    await pick(page, 'Region', '', 'EU')
    const rated = page.getByRole('region', { name: 'Rated lines' })
    const totals = rated.getByTestId('totals')
    const lines = rated.getByRole('table', { name: 'Lines of OF_INTERNET' })
    for (const [name, size] of [
      ['desktop', { width: 1440, height: 900 }],
      ['phone', WIDTHS.phone],
    ] as const) {
      await page.setViewportSize(size)
      await expect
        .poll(() => totals.locator('tr', { hasText: 'Total with tax' }).textContent().then(plain))
        .toContain('EUR 131.98')
      // Every box of the card, the totals' own first, is as wide as its content: nothing scrolls inside it.
      // (Polled: the menu slides away after a resize, the card widening as it goes.)
      const overflowing = () =>
        page.evaluate<string[]>(`(() => {
        const totals = document.querySelector('[data-testid="totals"]')
        const card = totals.closest('.mantine-Paper-root')
        return [totals, card, ...card.querySelectorAll('*')]
          .filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline')
          .map((e) => e.tagName + '.' + e.className + ' ' + e.scrollWidth + '>' + e.clientWidth)
      })()`)
      await expect.poll(overflowing).toEqual([])
      // Readable: each total's words and amount, and each line's amounts, lie inside the window.
      const cells = await totals
        .locator('th, td')
        .or(lines.locator('tbody td'))
        .evaluateAll(
          (all, width) =>
            all.map((c) => {
              const r = c.getBoundingClientRect()
              return { text: c.textContent, inside: r.left >= 0 && r.right <= width && r.width > 0 }
            }),
          size.width,
        )
      expect(cells.length).toBe(5 * 2 + 3 * 4)
      for (const c of cells) expect(c).toEqual({ text: c.text, inside: true })
      expect(plain(await totals.locator('tr', { hasText: 'Usage: ' }).textContent())).toContain('EUR 0.01 per MB')
      expect(plain(await lines.locator('tr', { hasText: 'Internet access, monthly' }).textContent())).toBe(
        'Internet access, monthlyRecurringEUR 59.99EUR 71.99',
      )
      // A wide card names the amounts' columns in its header; a narrow one under each amount's own name.
      const headerShown = await lines.locator('thead').isVisible()
      expect(headerShown).toBe(name === 'desktop')
      await page.screenshot({ path: `${SCREENSHOTS}/order-preview-totals-${name}.png`, fullPage: true })
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(size.width)
    }
    expect(app.ui.problems).toEqual([])
  })

  it(
    'lists the orders with status, account and rated amounts, narrowed to an account found by typing',
    { timeout: 90_000 },
    async () => {
      const page = await app.loggedIn('orders')
      const table = page.getByRole('table', { name: 'Orders' })
      await expect
        .poll(() => table.locator('tbody tr', { hasText: 'ORD_DEMO_001' }).textContent().then(plain))
        .toMatch(/^ORD_DEMO_001ValidatedBA_001.*EUR \d+\.\d\d$/)
      await pick(page, 'Billing account', '002', /^BA_002/)
      await expect
        .poll(() =>
          table
            .locator('tbody tr')
            .allTextContents()
            .then((l) => l.map(plain)),
        )
        .toEqual([expect.stringMatching(/^ORD_DEMO_002ValidatedBA_002.*EUR \d+\.\d\d$/)])
      await screenshots(page, 'sales-orders')
      await fitsAPhone(page)
      expect(app.ui.problems).toEqual([])
    },
  )

  it(
    'asks for the attributes of the version the order takes today, not of a later one published ahead',
    { timeout: 90_000 },
    async () => {
      // A version 2 of the internet product, published now but starting in 2099, asks for a colour only.
      const t = app.t
      const colour = { code: 'COLOUR', description: 'Colour', attributeType: 'LIST_TEXT', allowedValues: ['RED'] }
      expect((await t.request('POST', '/api/v1/attributes', colour)).status).toBe(201)
      const next = await t.request('POST', '/api/v1/products/PR_INTERNET/versions', { validFrom: '2099-01-01' })
      expect(next.status, JSON.stringify(next.body)).toBe(201)
      const version = `/api/v1/products/PR_INTERNET/versions/${next.body.version}`
      expect((await t.request('POST', `${version}/attributes/COLOUR`, {})).status).toBe(200)
      expect((await t.request('PUT', `${version}/status?status=PUBLISHED`)).status).toBe(200)

      const page = await app.loggedIn('order')
      await pick(page, 'Billing account', 'ba_004', /^BA_004/)
      await pick(page, 'Offer', 'internet', /^OF_INTERNET ·/)
      await expect
        .poll(() => page.getByTestId('preview-waits').textContent().then(plain))
        .toBe('Choose a value for Service tier (PR_INTERNET), Region (PR_INTERNET) to see the rated lines.')
      expect(await page.getByLabel('Colour').count()).toBe(0)
      expect(app.ui.problems).toEqual([])
    },
  )
})

describe('discount plans offered', () => {
  it(
    'an offer and an order pick among the plans the server says orders may use now; a linked draft plan is marked',
    { timeout: 120_000 },
    async () => {
      // A plan still in draft, linked to the demo offer beside its active one.
      const plan = await app.t.request('POST', '/api/v1/discountPlans', {
        code: 'DP_LATER',
        description: 'Later: 20 % off',
        discountPlanType: 'OFFER',
      })
      expect(plan.status, JSON.stringify(plan.body)).toBe(201)
      const linked = await app.t.request('PUT', '/api/v1/offerTemplates/OF_INTERNET', {
        discountPlans: ['DP_WELCOME_10', 'DP_LATER'],
      })
      expect(linked.status, JSON.stringify(linked.body)).toBe(200)
      try {
        const page = await app.loggedIn('catalog/offers/new')
        await page.setViewportSize({ width: 1440, height: 900 })
        const plans = page.getByRole('combobox', { name: 'Discount plans orders may choose' })
        await plans.click()
        // The active plans only: the draft is not offered to a new offer.
        await expect
          .poll(() => page.getByRole('option').allTextContents())
          .toEqual(['DP_LOYALTY_5 · Loyalty: 5 EUR off', 'DP_WELCOME_10 · Welcome: 10 % off'])
        await page.keyboard.press('Escape')

        // The offer that has the draft shows it, marked, beside the active one.
        await page.goto(`${app.base}/ui/catalog/offers/OF_INTERNET`)
        const root = page.locator('.mantine-MultiSelect-root', { hasText: 'Discount plans orders may choose' })
        await expect
          .poll(() => root.locator('.mantine-Pill-label').allTextContents())
          .toEqual(['DP_LATER (orders cannot use it now)', 'DP_WELCOME_10 · Welcome: 10 % off'])
        await screenshots(page, 'offer-discount-plans')
        await fitsAPhone(page)

        // The order preview offers the active plans of the offer and its product, not the draft.
        await page.goto(`${app.base}/ui/order`)
        await pick(page, 'Billing account', 'BA_002', /^BA_002/)
        await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
        // Polled: the product's plans render once its line is read, a moment after the offer's.
        await expect
          .poll(() => page.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-label'))))
          .toEqual(['Welcome: 10 % off', 'Loyalty: 5 EUR off'])
        await fitsAPhone(page)
        expect(app.ui.problems).toEqual([])
      } finally {
        await app.t.request('PUT', '/api/v1/offerTemplates/OF_INTERNET', { discountPlans: ['DP_WELCOME_10'] })
      }
    },
  )
})

describe('accounts', () => {
  it(
    'finds a customer by typing and walks down to a user account’s wallets and wallet operations',
    { timeout: 120_000 },
    async () => {
      const page = await app.loggedIn('accounts')
      await pick(page, 'Find a customer', 'cust_003', /^CUST_003/)
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain))
        .toBe('Customer CUST_003')
      await expect
        .poll(() =>
          page.getByRole('table', { name: 'Subscriptions' }).locator('tbody tr').first().textContent().then(plain),
        )
        .toContain('SUB_DEMO_003OF_INTERNETACTIVE')
      await page.getByRole('link', { name: /^CA_003/ }).click()
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain))
        .toBe('Customer account CA_003')
      await page.getByRole('link', { name: /^BA_003/ }).click()
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain))
        .toBe('Billing account BA_003')
      await expect
        .poll(() => page.getByRole('region', { name: 'Invoices' }).textContent().then(plain))
        .toMatch(/^Invoices(No invoices yet\.|.*EUR)/)
      await page.getByRole('link', { name: /^UA_003/ }).click()
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain))
        .toBe('User account UA_003')
      await expect
        .poll(() =>
          page
            .getByRole('table', { name: 'Wallets of the account' })
            .locator('tbody tr')
            .first()
            .textContent()
            .then(plain),
        )
        .toMatch(/^PRINCIPALPostpaidEUR /)
      const operations = page.getByRole('table', { name: 'Wallet operations of the account' }).locator('tbody tr')
      await expect.poll(() => operations.count()).toBeGreaterThan(1)
      await expect
        .poll(() => operations.allTextContents().then((l) => l.map(plain)))
        .toContainEqual(expect.stringMatching(/^.*Installation feeOne-time, at subscriptionOPENEUR 59\.99$/))
      await screenshots(page, 'sales-user-account')
      await fitsAPhone(page)
      // The breadcrumb leads back up.
      await page.getByRole('link', { name: 'Billing account BA_003' }).click()
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent().then(plain))
        .toBe('Billing account BA_003')
      expect(app.ui.problems).toEqual([])
    },
  )
})
