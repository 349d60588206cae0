import { describe, expect, it } from 'vitest'
import { onPostgres } from '../support/test-database.ts'
import { screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { write } from './pickers.ts'

// The Expert workbench in Chromium on a PostgreSQL server (run with TEST_DATABASE_URL).
const app = useUiApp()

// The embedded database runs one statement at a time in the server's process: a long run, and its cancel, need a server.
describe.runIf(onPostgres)('the Expert workbench on PostgreSQL', () => {
  it('shows a long run as running with its elapsed time, and cancels it', async () => {
    const page = await app.loggedIn('expert')
    await write(page, 'select count(*) from generate_series(1, 2000000000) as a')
    await page.keyboard.press('Control+Enter')
    const status = page.getByTestId('run-status')
    await expect.poll(() => status.textContent()).toMatch(/^Running · [\d.]+ s elapsed/)
    await expect
      .poll(() => page.getByRole('table', { name: 'Recent runs' }).locator('tbody tr').first().textContent())
      .toContain('Running')
    await screenshots(page, 'expert-running')
    await page.getByRole('button', { name: 'Cancel run', exact: true }).click()
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Cancelled · .* in all$/)
    expect(app.ui.problems).toEqual([])
  })
})
