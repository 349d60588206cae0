import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { ensureUi } from '../../bin/build-ui.js'

/** Debian's Chromium (apt-get install -y chromium): never a browser downloaded by Playwright. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const SCREENSHOTS = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'ui')
export const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const

export interface UiBrowser {
  readonly browser: Browser
  /** A page at the given size, failing the test on any console error or a refused API call. */
  page(size?: keyof typeof WIDTHS): Promise<Page>
  /** Closes the browser (also done after the file); call it before the app closes, so no connection stays open. */
  close(): Promise<void>
  /** Problems seen by the pages: console errors, uncaught exceptions, API answers of 4xx/5xx not expected. */
  readonly problems: string[]
}

/**
 * Builds the web UI when stale (before the app starts, so the app serves it), then launches Chromium once for the
 * file. Register it before useTestApp: hooks run in the order they are declared.
 */
export function useBrowser(): UiBrowser {
  let browser: Browser | undefined
  const problems: string[] = []
  beforeAll(async () => {
    if (!(await ensureUi())) throw new Error('the web UI did not build')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] })
    fs.mkdirSync(SCREENSHOTS, { recursive: true })
  }, 180_000)
  let last: Page | undefined
  beforeEach(() => {
    problems.length = 0
  })
  // A failed test leaves a picture of where it stopped.
  afterEach(async (context) => {
    if (context.task.result?.state === 'fail' && last && !last.isClosed()) {
      const name = context.task.name.split(':')[0]!.replace(/\W+/g, '-')
      await last.screenshot({ path: path.join(SCREENSHOTS, `failed-${name}.png`), fullPage: true }).catch(() => {})
    }
    await last?.context().close()
    last = undefined
  })
  afterAll(async () => {
    await browser?.close()
  })
  return {
    get browser() {
      return browser!
    },
    problems,
    async close() {
      await browser?.close()
      browser = undefined
    },
    async page(size = 'desktop') {
      const context = await browser!.newContext({ viewport: WIDTHS[size] })
      await context.grantPermissions(['clipboard-read', 'clipboard-write'])
      const page = await context.newPage()
      last = page
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`)
      })
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      return page
    },
  }
}

/** Saves the page at both widths under test-results/ui/<name>-<width>.png, for a person to look at. */
export async function screenshots(page: Page, name: string): Promise<void> {
  for (const [label, size] of Object.entries(WIDTHS)) {
    await page.setViewportSize(size)
    // Transitions finished (the menu sliding away after a resize), as a user sees the screen a moment later.
    await page.screenshot({
      path: path.join(SCREENSHOTS, `${name}-${label}.png`),
      fullPage: true,
      animations: 'disabled',
    })
  }
  await page.setViewportSize(WIDTHS.desktop)
}

/** The page's width in CSS pixels as laid out: more than the viewport means the user must scroll sideways. */
export async function pageWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth')
}
