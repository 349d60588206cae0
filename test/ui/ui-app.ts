import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect } from 'vitest'
import type { Page } from 'playwright-core'
import { seedDemo } from '../../src/seed.ts'
import { TEST_ADMIN, useTestApp, type TestApp } from '../support/test-app.ts'
import { useBrowser, type UiBrowser } from './browser.ts'

export interface UiApp {
  readonly ui: UiBrowser
  readonly t: TestApp
  /** The app's address, http://127.0.0.1:<port>. */
  readonly base: string
  /** A page logged in as the test administrator, on the screen at /ui/<screen> (`workbench`, `orders/42`). */
  loggedIn(screen: string): Promise<Page>
  /** The browser logs each refused request: exactly `count` of `status` were expected by the test, and nothing else. */
  expectRefused(count: number, status?: string): void
}

/**
 * The web UI in a real Chromium against a real app on the demo data, listening on a port: one per test file. The
 * browser registers first (it builds the UI before the app starts), and closes before the app does.
 */
export function useUiApp(): UiApp {
  const ui = useBrowser()
  const t = useTestApp()
  let base = ''
  // After hooks run last-registered first: the browser closes, and its connections with it, before the app does.
  afterAll(async () => {
    await ui.close()
    t.app.server.server.closeAllConnections()
  })
  beforeAll(async () => {
    await seedDemo(t.db.current.db)
    await t.app.server.listen({ host: '127.0.0.1', port: 0 })
    base = `http://127.0.0.1:${(t.app.server.server.address() as AddressInfo).port}`
  }, 120_000)

  return {
    ui,
    t,
    get base() {
      return base
    },
    async loggedIn(screen) {
      const page = await ui.page()
      await page.goto(`${base}/`)
      await page.getByLabel('Username').fill(TEST_ADMIN.username)
      await page.getByLabel('Password').fill(TEST_ADMIN.password)
      await page.getByRole('button', { name: 'Log in' }).click()
      await page.getByTestId('user').waitFor()
      await page.goto(`${base}/ui/${screen}`)
      return page
    },
    expectRefused(count, status = '400 (Bad Request)') {
      expect(ui.problems).toHaveLength(count)
      for (const problem of ui.problems) expect(problem).toContain(`status of ${status}`)
      ui.problems.length = 0
    },
  }
}
