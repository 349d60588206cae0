import { describe, expect, it } from 'vitest'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'

// The landing screen in Chromium: the figures a billing team looks at first, from GET /api/v1/overview.
const app = useUiApp()

describe('the overview', () => {
  it('is where /ui/ leads: operations rated, reservations held, next bill runs, a chart; no overflow on a phone', async () => {
    const page = await app.loggedIn('')
    await expect.poll(() => page.url()).toBe(`${app.base}/ui/overview`)
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
    expect(await page.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page')
    const figures = (await app.t.request('GET', '/api/v1/overview')).body
    const count = (list: { count: number }[]) => list.reduce((sum, x) => sum + x.count, 0).toLocaleString('en-GB')
    await expect
      .poll(() => page.getByTestId('rated-month').textContent())
      .toContain(count(figures.walletOperations.thisMonth))
    await expect
      .poll(() => page.getByTestId('rated-today').textContent())
      .toContain(count(figures.walletOperations.today))
    await expect.poll(() => page.getByTestId('open-reservations').textContent()).toContain('Open reservations')
    await page.getByRole('region', { name: 'Next bill runs' }).waitFor()
    await page.getByRole('region', { name: 'Recent Expert runs' }).waitFor()
    await expect
      .poll(() => page.locator('.recharts-bar-rectangle, .recharts-cartesian-grid').count())
      .toBeGreaterThan(0)
    await screenshots(page, 'overview')
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
    expect(app.ui.problems).toEqual([])
  }, 120_000)
})
