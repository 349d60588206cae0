import { describe, expect, it } from 'vitest'
import type { Locator, Page } from 'playwright-core'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// Prepaid in Chromium: a user account's wallets, a wallet created and credited, reservations confirmed or released,
// and a wallet's operations.
const app = useUiApp()

/** Text as a person reads it: the non-breaking space Intl puts after a currency code is a space. */
const read = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\u00a0/g, ' ')

async function chooseAccount(page: Page, code: string) {
  await page.getByLabel('User account').first().fill(code)
  await page.getByRole('option', { name: new RegExp(`^${code}\\b`) }).click()
}

const reserve = async (quantity: number) => {
  const held = await app.t.app.server.inject({
    method: 'POST',
    url: '/api/rest/billing/mediation/reserveCdr',
    headers: { 'content-type': 'text/plain', authorization: `Bearer ${app.t.adminToken}` },
    payload: `2026-11-20T10:00:00;SUB_DEMO_001;${quantity};DATA;`,
  })
  expect(held.statusCode, held.body).toBe(200)
  return held.json<{ reservationId: number; amountWithTax: number }>()
}

describe('prepaid', () => {
  it('creates and credits a prepaid wallet, shows what a reservation holds, confirms one and releases another', async () => {
    const page = await app.loggedIn('prepaid')
    await chooseAccount(page, 'UA_001')
    const wallets = page.getByRole('region', { name: 'Wallets' })
    await expect
      .poll(() => read(wallets.locator('tbody tr').first()))
      .toBe('PRINCIPALpostpaidEUR 0.00EUR 0.00EUR 0.00Operations')
    await expect
      .poll(() => page.getByRole('region', { name: 'Open reservations' }).textContent())
      .toContain('No open reservation.')

    await page.getByLabel('Wallet code').fill('PP')
    await page.getByRole('button', { name: 'Create wallet' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Created the prepaid wallet PP in EUR.')
    await page.getByLabel('Amount').fill('25.00')
    await page.getByLabel('Reference (optional)').fill('Top-up at the counter')
    await page.getByRole('button', { name: 'Credit', exact: true }).click()
    await expect.poll(() => read(page.getByRole('status'))).toBe('Credited PP with EUR 25.00: EUR 25.00 available.')
    const pp = wallets.locator('tr', { hasText: 'PP' })
    await expect.poll(() => read(pp)).toBe('PPprepaidEUR 25.00EUR 0.00EUR 25.00Operations')

    // 100 MB of data on the demo subscription of UA_001, held against PP at the published formula's price.
    const first = await reserve(100)
    expect(first.amountWithTax).toBe(1.2)
    const second = await reserve(200)
    await page.getByRole('button', { name: 'Refresh' }).click()
    const open = page.getByRole('region', { name: 'Open reservations' }).locator('tbody tr')
    await expect.poll(() => open.count()).toBe(2)
    await expect.poll(() => read(open.first())).toContain(`${first.reservationId}usagePPSUB_DEMO_001100EUR 1.20`)
    await expect.poll(() => read(pp)).toBe('PPprepaidEUR 25.00EUR 3.60EUR 21.40Operations')
    await screenshots(page, 'prepaid')

    // Confirmed: its usage is charged (an operation of PP); released: what it held goes back.
    await page.getByRole('button', { name: `Confirm reservation ${first.reservationId}` }).click()
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe(`Confirmed reservation ${first.reservationId}: its usage is charged.`)
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: `Release reservation ${second.reservationId}` }).click()
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe(`Released reservation ${second.reservationId}.`)
    await expect
      .poll(() => page.getByRole('region', { name: 'Open reservations' }).textContent())
      .toContain('No open reservation.')
    await expect.poll(() => read(pp)).toBe('PPprepaidEUR 23.80EUR 0.00EUR 23.80Operations')
    await page.getByRole('button', { name: 'Operations of PP' }).click()
    const history = page.getByRole('region', { name: 'Operations of PP' }).locator('tbody tr')
    await expect.poll(() => history.count()).toBe(1)
    await expect.poll(() => read(history.first())).toContain('usage')
    await expect.poll(() => read(history.first())).toContain('EUR 1.20')
    await screenshots(page, 'prepaid-history')
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    expect(app.ui.problems).toEqual([])
  }, 120_000)

  it('finds the user account by typing part of its holder’s name, at both widths', async () => {
    const page = await app.loggedIn('prepaid')
    // The Query API's answer to what was typed (any case, anywhere in the name): the one account of that holder,
    // after the account chosen before (the picker keeps the current choice listed).
    for (const [size, typed, code, holder, options] of [
      [{ width: 1440, height: 900 }, 'dora love', 'UA_003', 'Dora Lovelace', ['UA_003 · Dora Lovelace']],
      [
        { width: 390, height: 844 },
        'BLAISE L',
        'UA_001',
        'Blaise Lovelace',
        ['UA_003 · Dora Lovelace', 'UA_001 · Blaise Lovelace'],
      ],
    ] as const) {
      await page.setViewportSize(size)
      await page.getByLabel('User account').first().fill(typed)
      await expect.poll(() => page.getByRole('option').allTextContents()).toEqual(options)
      await page.getByRole('option', { name: `${code} · ${holder}` }).click()
      await expect.poll(() => page.getByRole('heading', { name: `Wallets of ${code}` }).count()).toBe(1)
      await expect
        .poll(() => page.getByRole('region', { name: 'Wallets' }).first().textContent())
        .toContain('PRINCIPAL')
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(size.width)
    }
    await screenshots(page, 'prepaid-account-typed')
    expect(app.ui.problems).toEqual([])
  }, 120_000)

  it('says plainly when a credit is refused, naming the field', async () => {
    const page = await app.loggedIn('prepaid')
    await chooseAccount(page, 'UA_001')
    await page.getByLabel('Amount').fill('-5')
    await page.getByRole('button', { name: 'Credit', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('amount')
    expect(await page.getByRole('alert').textContent()).not.toContain('VALIDATION')
    await screenshots(page, 'prepaid-refused')
    app.expectRefused(1)
  }, 120_000)
})
