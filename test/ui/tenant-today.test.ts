import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { FakeClock } from '../../src/kernel/clock.ts'
import { pageWidth, screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// The tenant's today comes from the server: its clock read in the tenant's time zone, told to every logged-in user
// (a user who may not read the tenant settings too). The server's clock is years away from the browser's calendar,
// and 23:30 UTC is already the next day in Auckland: a state read on any other day says otherwise.
const clock = new FakeClock('2030-06-15T23:30:00Z')
const app = useUiApp({ clock })
const TENANT_TODAY = '2030-06-16'

const USER = { username: 'catalog.reader', password: 'reader-password-0123' }

/** A portal user whose group holds every view role but the settings one (GET /api/v1/tenantSettings: 403). */
async function readerWithoutSettings(): Promise<void> {
  const roles = (await app.t.request('GET', '/api/v1/roles')).body.data as { name: string; scope: string | null }[]
  const views = roles.filter((r) => r.scope === 'view' && r.name !== 'api.settings.view').map((r) => r.name)
  const group = await app.t.request('POST', '/api/v1/groups', { name: 'Catalog readers', roles: views })
  expect(group.status, JSON.stringify(group.body)).toBe(201)
  const user = await app.t.request('POST', '/api/v1/users', { ...USER, groups: ['Catalog readers'] })
  expect(user.status, JSON.stringify(user.body)).toBe(201)
}

async function logIn(width: number, height: number): Promise<Page> {
  const page = await app.ui.page()
  await page.setViewportSize({ width, height })
  await page.goto(`${app.base}/`)
  await page.getByLabel('Username').fill(USER.username)
  await page.getByLabel('Password').fill(USER.password)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('user').waitFor()
  return page
}

describe("the tenant's today", { timeout: 120_000 }, () => {
  it('version states are read on the tenant day the server tells, for a user without the settings role', async () => {
    expect((await app.t.request('PUT', '/api/v1/tenantSettings', { timeZone: 'Pacific/Auckland' })).status).toBe(200)
    // A product whose first version ends on the tenant's today and whose second starts then.
    const product = await app.t.request('POST', '/api/v1/products', { code: 'PR_DAYS', name: 'Days' })
    expect(product.status, JSON.stringify(product.body)).toBe(201)
    for (const [version, dates] of [
      [1, { validFrom: '2030-01-01', validTo: TENANT_TODAY }],
      [2, { validFrom: TENANT_TODAY }],
    ] as const) {
      const created = await app.t.request('POST', '/api/v1/products/PR_DAYS/versions', dates)
      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const published = await app.t.request(
        'PUT',
        `/api/v1/products/PR_DAYS/versions/${version}/status?status=PUBLISHED`,
      )
      expect(published.status, JSON.stringify(published.body)).toBe(200)
    }
    await readerWithoutSettings()

    for (const [label, width, height] of [
      ['desktop', 1440, 900],
      ['phone', 390, 844],
    ] as const) {
      const page = await logIn(width, height)
      await page.goto(`${app.base}/ui/catalog/products/PR_DAYS`)
      const versions = page.getByRole('list', { name: 'Product versions' })
      // On the browser's calendar (or the server's UTC day) version 2 would start tomorrow and version 1 be in force.
      await expect.poll(() => versions.locator('li').first().textContent()).toMatch(/^Version 2In force, open-ended/)
      expect(await versions.locator('li').nth(1).textContent()).toMatch(/^Version 1Ended 16 Jun 2030/)
      if (label === 'phone') expect(await pageWidth(page)).toBeLessThanOrEqual(390)
      else await screenshots(page, 'tenant-today-product')
      // No read of the settings (a 403 for this user), no console error.
      expect(app.ui.problems).toEqual([])
      await page.context().close()
    }
  })
})
