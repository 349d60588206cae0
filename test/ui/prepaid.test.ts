import { describe, expect, it } from 'vitest'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// Prepaid in Chromium: a user account's wallets, a wallet created and credited, and an open reservation seen.
const app = useUiApp()

describe('prepaid', () => {
  it('creates and credits a prepaid wallet, then shows the amount a usage reservation holds', async () => {
    const page = await app.loggedIn('prepaid')
    await page.getByLabel('User account').selectOption('UA_001')
    const wallets = page.getByRole('region', { name: 'Wallets' })
    await expect.poll(() => wallets.locator('tbody tr').first().textContent()).toBe('PRINCIPALPOSTPAIDEUR000')
    await expect
      .poll(() => page.getByRole('region', { name: 'Open reservations' }).textContent())
      .toContain('No open reservation.')

    await page.getByLabel('Wallet code').fill('PP')
    await page.getByRole('button', { name: 'Create wallet' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Created the prepaid wallet PP in EUR.')
    await page.getByLabel('Amount').fill('25.00')
    await page.getByLabel('Reference (optional)').fill('Top-up at the counter')
    await page.getByRole('button', { name: 'Credit', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Credited PP with 25.00 EUR: 25 available.')
    await expect.poll(() => wallets.locator('tr', { hasText: 'PP' }).textContent()).toBe('PPPREPAIDEUR25025')

    // 100 MB of data on the demo subscription of UA_001, held against PP at the published formula's price.
    const held = await app.t.app.server.inject({
      method: 'POST',
      url: '/api/rest/billing/mediation/reserveCdr',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${app.t.adminToken}` },
      payload: '2026-11-20T10:00:00;SUB_DEMO_001;100;DATA;',
    })
    expect(held.statusCode, held.body).toBe(200)
    // 100 MB at 0.01 is 1.00, 1.20 with the 20 % tax.
    expect(held.json()).toMatchObject({ amountWithTax: 1.2 })
    const { reservationId } = held.json<{ reservationId: number }>()
    await page.getByRole('button', { name: 'Refresh' }).click()
    const open = page.getByRole('region', { name: 'Open reservations' }).locator('tbody tr')
    await expect.poll(() => open.count()).toBe(1)
    await expect.poll(() => open.first().textContent()).toContain(`${reservationId}USAGEPPSUB_DEMO_0011001.2`)
    await expect.poll(() => wallets.locator('tr', { hasText: 'PP' }).textContent()).toBe('PPPREPAIDEUR251.223.8')
    await screenshots(page, 'prepaid')
    expect(app.ui.problems).toEqual([])
  })

  it('says plainly when a credit is refused, naming the field', async () => {
    const page = await app.loggedIn('prepaid')
    await page.getByLabel('User account').selectOption('UA_001')
    await page.getByLabel('Amount').fill('-5')
    await page.getByRole('button', { name: 'Credit', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('amount')
    await screenshots(page, 'prepaid-refused')
    app.expectRefused(1)
  })
})
