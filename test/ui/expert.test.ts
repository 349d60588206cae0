import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { forgetTenantSettings } from '../../src/kernel/settings.ts'
import { pageWidth, screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { pick, write } from './pickers.ts'

// The Expert workbench in Chromium: native SQL into a CSV file, its live status, the download, and the refusals.
const app = useUiApp()

const setGovernor = async (values: Record<string, number>) => {
  const res = await app.t.request('PUT', '/api/v1/tenantSettings', { workbench: { governor: values } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  forgetTenantSettings(app.t.db.current.db)
}

// A test here waits for runs in the background (its polls add up to more than the default 30 s on a busy machine).
describe('the Expert workbench', { timeout: 120_000 }, () => {
  it('shows a long run at once with its rows so far, keeps it across a visit elsewhere, and cancels it', async () => {
    // Twelve million rows: their fetch (after the embedded database computed them, a few seconds) outlasts watching, leaving,
    // returning and cancelling on a busy machine; three million ended first once.
    await setGovernor({ maxRowsSync: 12_000_000, maxRowsAsync: 12_000_000, maxExportMegabytes: 1024 })
    try {
      const page = await app.loggedIn('expert')
      await write(page, 'select generate_series(1, 12000000) as n')
      await page.keyboard.press('Control+Enter')
      const status = page.getByTestId('run-status')
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Running · .* elapsed/)
      await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/rows so far$/)
      const address = new URL(page.url())
      expect(address.searchParams.get('run')).toMatch(/^\d+$/)
      await screenshots(page, 'expert-running')
      // No sideways scrolling on a phone.
      await page.setViewportSize({ width: 390, height: 844 })
      expect(await pageWidth(page)).toBeLessThanOrEqual(390)
      await page.setViewportSize({ width: 1440, height: 900 })
      // Away and back by the address the screen keeps: the same run, still running.
      await page.goto(`${address.origin}/ui/`)
      await page.goto(address.toString())
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 }).toMatch(/^Running/)
      await page.getByRole('button', { name: 'Cancel run', exact: true }).click()
      await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 }).toMatch(/^Cancelled/)
      expect(app.ui.problems).toEqual([])
    } finally {
      await setGovernor({ maxRowsSync: 1000, maxRowsAsync: 1_000_000 })
    }
  })

  it('says in words when the row cap cut the result', async () => {
    const page = await app.loggedIn('expert')
    await write(page, 'select generate_series(1, 5000) as n')
    await page.keyboard.press('Control+Enter')
    await expect
      .poll(() => page.getByTestId('run-status').textContent(), { timeout: 15_000 })
      .toMatch(/^Done · .* 1,000 lines$/)
    await expect.poll(() => page.getByTestId('run-cap').textContent()).toContain('workbench.governor.maxRowsSync')
    await screenshots(page, 'expert-capped')
    expect(app.ui.problems).toEqual([])
  })

  it('completes the tables the Expert role can read, and their columns after a dot; no platform table', async () => {
    const page = await app.loggedIn('expert')
    const options = () => page.locator('.cm-tooltip-autocomplete .cm-completionLabel').allTextContents()
    await write(page, 'select customer.sel')
    const option = (label: string) => page.locator('.cm-completionLabel').getByText(label, { exact: true })
    // Picked from the list (Enter right after the list opens types a line break: CodeMirror's interaction delay).
    await option('seller_id').click()
    await page.keyboard.type(' from custo')
    await option('customer').waitFor()
    await screenshots(page, 'expert-completion')
    await option('customer').click()
    await expect.poll(() => page.locator('.cm-content').textContent()).toBe('select customer.seller_id from customer')
    // Saved reports and the workbench's own runs are platform records the Expert role cannot read: never offered.
    await page.keyboard.type(' join report_q')
    await page.keyboard.press('Control+Space')
    await expect.poll(options).not.toContain('report_query')
    await page.keyboard.press('Escape')
    await write(page, 'select query_exec')
    await page.keyboard.press('Control+Space')
    await expect.poll(options).not.toContain('query_execution')
    await page.keyboard.press('Control+Enter')
    const status = page.getByTestId('run-status')
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Failed/)
    // The database's reason, as an alert in the run's box.
    await expect
      .poll(() => page.getByRole('region', { name: 'Current run' }).getByRole('alert').textContent())
      .toBe('The query failed: column "query_exec" does not exist.')
    await screenshots(page, 'expert-failed')
    expect(app.ui.problems).toEqual([])
  })

  it('submits SQL with Ctrl+Enter, polls until done with the line count, downloads the CSV, lists the run', async () => {
    const page = await app.loggedIn('expert')
    await write(page, 'select code, name from customer order by code')
    await page.keyboard.press('Control+Enter')
    const status = page.getByTestId('run-status')
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Done · .* in all · 50 lines$/)
    const recent = page.getByRole('table', { name: 'Recent runs' })
    await expect.poll(() => recent.locator('tbody tr').first().textContent()).toContain('Done')

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toMatch(/^expert-\d+\.csv$/)
    const lines = fs
      .readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n')
    expect([lines.length, lines[0], lines[1]?.startsWith('CUST_001,')]).toEqual([51, 'code,name', true])
    await screenshots(page, 'expert')

    // Saved as a NATIVE_SQL workbench query, and reopened after a reload.
    await page.getByLabel('Name').fill('UI_CUSTOMERS_SQL')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Saved UI_CUSTOMERS_SQL.')
    const stored = await app.t.request('GET', '/api/v1/workbench/queries/UI_CUSTOMERS_SQL')
    expect([stored.body.queryType, stored.body.queryText]).toEqual([
      'NATIVE_SQL',
      'select code, name from customer order by code',
    ])
    await page.reload()
    await write(page, 'select 1')
    await pick(page, 'Saved queries', '', 'UI_CUSTOMERS_SQL')
    await expect
      .poll(() => page.locator('.cm-content').textContent())
      .toBe('select code, name from customer order by code')
    expect(app.ui.problems).toEqual([])
  })

  it('says plainly why a query is refused, and when the governor lets the user retry', async () => {
    const page = await app.loggedIn('expert')
    await write(page, 'delete from customer')
    await page.getByRole('button', { name: 'Submit' }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(/the query must start with SELECT, WITH or EXPLAIN/)
    await screenshots(page, 'expert-invalid')
    app.expectRefused(1)

    // One query a minute, and this minute's slot is taken (or, if the minute just turned, taken by the next submit).
    await setGovernor({ maxQueriesPerMinutePerUser: 1 })
    try {
      await write(page, 'select code from seller')
      for (let attempt = 0; attempt < 2; attempt++) {
        await page.getByRole('button', { name: 'Submit' }).click()
        await expect.poll(() => page.locator('[role=alert], [data-testid=run-status]').count()).toBeGreaterThan(0)
        await page.getByRole('button', { name: 'Submit' }).and(page.locator(':enabled')).waitFor()
        if ((await page.getByRole('alert').count()) > 0) break
      }
      const alert = await page.getByRole('alert').textContent()
      expect(alert).toMatch(/At most 1 workbench queries a minute per user: retry in \d+ s/)
      await screenshots(page, 'expert-governor')
      app.expectRefused(1, '429 (Too Many Requests)')
    } finally {
      await setGovernor({ maxQueriesPerMinutePerUser: 30 })
    }
  })
})
