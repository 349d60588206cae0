import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshots, WIDTHS } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { field, pick } from './pickers.ts'

// Bill runs and invoices in Chromium, on the demo data (twelve accounts of CYC_MONTHLY with open wallet operations):
// a MANUAL run driven from its page to VALIDATED, an invoice's page with its PDF, and a credit note issued.
const app = useUiApp()

async function noOverflowAtPhoneWidth(page: Page): Promise<void> {
  await page.setViewportSize(WIDTHS.phone)
  // Run in the page, as text (the tests are compiled without the DOM's types).
  const wide = await page.evaluate<string[]>(`document.documentElement.scrollWidth <= 390
    ? []
    : [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 391)
        .slice(0, 5)
        .map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)
  expect(wide).toEqual([])
  await page.setViewportSize(WIDTHS.desktop)
}

describe('bill runs and invoices', () => {
  it('drives a MANUAL run from NEW to VALIDATED with its buttons, issues a credit note of one of its invoices, and finds invoices in the list', async () => {
    const created = await app.t.request('POST', '/api/v1/billingRuns', {
      billingCycle: 'CYC_MONTHLY',
      processType: 'MANUAL',
      generateAO: true,
      lastTransactionDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id = created.body.id as number

    const page = await app.loggedIn('billing/runs')
    const list = page.getByRole('table', { name: 'Bill runs' })
    await expect.poll(() => list.textContent()).toContain(`Run ${id}`)
    await screenshots(page, 'billing-runs')
    await noOverflowAtPhoneWidth(page)

    await list.getByRole('link', { name: `Run ${id}` }).click()
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe(`Bill run ${id}`)
    // The lines step runs at once; then the run waits for a person.
    const advance = page.getByRole('button', { name: 'Advance' })
    await advance.waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('status').first().textContent()).toBe('Invoice lines created')
    await expect
      .poll(() => page.getByRole('region', { name: 'Actions' }).textContent())
      .toContain('Advance creates the draft invoices')
    await expect.poll(() => page.getByRole('button', { name: 'Cancel' }).count()).toBe(1)
    await screenshots(page, 'billing-run-lines')
    await advance.click()
    await expect
      .poll(() => page.getByTestId('status').first().textContent(), { timeout: 30_000 })
      .toBe('Draft invoices')
    await page.getByRole('button', { name: 'Advance' }).waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByRole('region', { name: 'Actions' }).textContent()).toContain('Advance validates')
    const invoices = page.getByRole('region', { name: 'Invoices of the run' })
    await expect.poll(() => invoices.getByRole('tab').allTextContents()).toEqual(['Draft (12)'])
    await screenshots(page, 'billing-run-drafts')
    await noOverflowAtPhoneWidth(page)
    await page.getByRole('button', { name: 'Advance' }).click()
    await expect.poll(() => page.getByTestId('status').first().textContent(), { timeout: 30_000 }).toBe('Validated')
    await expect.poll(() => page.getByTestId('no-actions').textContent()).toContain('This run is done')
    await expect.poll(() => invoices.getByRole('tab').allTextContents()).toEqual(['Validated (12)'])
    await screenshots(page, 'billing-run-validated')
    const stored = await app.t.request('GET', `/api/v1/billingRuns/${id}`)
    expect(stored.body.status).toBe('VALIDATED')
    expect(stored.body.counts.invoices).toEqual({ VALIDATED: 12 })

    // An invoice of the run: its lines, taxes, accounting operation and PDF.
    const first = invoices.getByRole('link').first()
    const number = (await first.textContent())!
    expect(number).toMatch(/^INV-\d{4}-\d{6}$/)
    const pdfAnswer = page.waitForResponse((r) => /\/api\/v1\/invoices\/\d+\/pdf$/.test(r.url()))
    await first.click()
    await expect.poll(() => page.locator('main h1').first().textContent()).toBe(number)
    await expect.poll(() => page.getByRole('region', { name: 'Accounting operation' }).textContent()).toContain(number)
    await page.getByTestId('invoice-pdf').waitFor()
    const pdf = await page.getByTestId('invoice-pdf').getAttribute('src')
    expect(pdf).toMatch(/^blob:/)
    // The frame shows the file fetched with the session's token (the PDF itself, drawn by Chromium's viewer).
    const answer = await pdfAnswer
    expect(answer.status()).toBe(200)
    expect(answer.headers()['content-type']).toBe('application/pdf')
    expect(page.frames().some((f) => f.url() === pdf)).toBe(true)
    await expect.poll(() => page.getByRole('link', { name: `Download ${number}.pdf` }).count()).toBe(1)
    // The PDF viewer draws after the frame loads.
    await page.waitForTimeout(1500)
    await screenshots(page, 'invoice-validated')
    await noOverflowAtPhoneWidth(page)
    const originalTotal = await page.getByTestId('total').textContent()
    expect(originalTotal).toMatch(/^EUR\u00a0[\d,]+\.\d\d$/)

    // A credit note of the whole invoice.
    const form = page.getByRole('form', { name: 'Credit note' })
    await form.getByLabel('Reason').fill('Service interrupted for the month')
    await form.getByRole('button', { name: 'Create the credit note' }).click()
    const made = page.getByRole('status').filter({ hasText: 'Credit note created' })
    await expect.poll(() => made.textContent()).toContain('is a draft')
    await screenshots(page, 'invoice-credited')
    await made.getByRole('link').click()
    await expect.poll(() => page.locator('main h1').first().textContent()).toMatch(/^Credit note #\d+/)
    await expect.poll(() => page.getByTestId('total').textContent()).toBe(originalTotal)
    await page.getByRole('button', { name: 'Validate' }).click()
    await expect.poll(() => page.locator('main h1').first().textContent()).toMatch(/^CN-\d{4}-\d{6}$/)
    await expect
      .poll(() => page.getByRole('region', { name: 'Accounting operation' }).textContent())
      .toContain('Credit')
    await screenshots(page, 'credit-note-validated')
    await noOverflowAtPhoneWidth(page)
    expect(app.ui.problems).toEqual([])

    // The invoice list: searched, filtered, and an empty result said in words.
    await page.getByRole('link', { name: 'Invoices', exact: true }).click()
    const table = page.getByRole('table', { name: 'Invoices' })
    await expect.poll(() => page.getByTestId('invoice-count').textContent()).toMatch(/^\d+ invoices?$/)
    await page.getByLabel('Search').fill('BA_003')
    await expect.poll(() => page.getByTestId('invoice-count').textContent()).toMatch(/match these filters$/)
    await expect
      .poll(async () => (await table.locator('tbody tr').allTextContents()).every((r) => r.includes('BA_003')))
      .toBe(true)
    await page.getByLabel('Bill run').fill('999999')
    await expect
      .poll(() => page.getByTestId('empty').textContent())
      .toBe('No invoice matches these filters. Change or clear them to see more.')
    await screenshots(page, 'invoices-empty')
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await page.getByLabel('Dated from').fill('2020-01-01')
    await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(0)
    await screenshots(page, 'invoices')
    await noOverflowAtPhoneWidth(page)
    expect(app.ui.problems).toEqual([])

    // The billing account filter is found by typing part of its holder's name, at both widths; cleared with the rest.
    for (const size of [{ width: 1440, height: 900 }, WIDTHS.phone]) {
      await page.setViewportSize(size)
      await pick(page, 'Billing account', 'dora love', 'BA_003 · Dora Lovelace')
      await expect.poll(() => page.getByTestId('invoice-count').textContent()).toMatch(/match these filters$/)
      await expect
        .poll(async () => {
          const rows = await table.locator('tbody tr').allTextContents()
          return rows.length > 0 && rows.every((r) => r.includes('BA_003'))
        })
        .toBe(true)
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(size.width)
      await page.getByRole('button', { name: 'Clear filters' }).click()
      await expect.poll(() => field(page, 'Billing account').inputValue()).toBe('')
    }
    await page.setViewportSize(WIDTHS.desktop)
    expect(app.ui.problems).toEqual([])
  }, 240_000)
})
