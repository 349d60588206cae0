import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { TEST_ADMIN } from '../support/test-app.ts'
import { pageWidth, screenshots } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { field, pick, plain } from './pickers.ts'

// The web UI in a real Chromium against a real app listening on a port, one test per screen's main path.
const app = useUiApp()
const { ui, t } = app
const loggedIn = (screen: string) => app.loggedIn(screen)
const problems400 = (count: number) => app.expectRefused(count)

interface Stop {
  body: boolean
  id: string
  name: string
  visible: boolean
  editor: boolean
}
/**
 * The focused element: its accessible name (roughly), whether its focus is drawn, whether it is an editor. Sent as
 * text: it runs in the page, whose DOM this Node file has no types for.
 */
const FOCUSED = `(() => {
  const el = document.activeElement
  if (!el || el === document.body) return { body: true, id: 'body', name: '', visible: true, editor: false }
  const labelled = el.getAttribute('aria-labelledby')
  const name = (
    el.getAttribute('aria-label') ??
    (labelled ? document.getElementById(labelled)?.textContent : undefined) ??
    el.labels?.[0]?.textContent ??
    el.textContent ??
    el.getAttribute('title') ??
    ''
  ).trim()
  // An editor's focus is drawn on its box (styles.css), around CodeMirror's content element that holds it.
  const style = getComputedStyle(el.closest('.editor') ?? el)
  const visible = (style.outlineStyle !== 'none' && style.outlineWidth !== '0px') || style.boxShadow !== 'none'
  const path = []
  for (let node = el; node && node !== document.body; node = node.parentElement)
    path.unshift(node.tagName + [...(node.parentElement?.children ?? [])].indexOf(node))
  return { body: false, id: path.join('>'), name, visible, editor: el.classList.contains('cm-content') }
})()`
const focusedStop = (page: Page): Promise<Stop> => page.evaluate<Stop>(FOCUSED)

describe('the web UI', () => {
  it('serves the bundle compressed with cache headers; / leads to /ui/', async () => {
    const landing = await fetch(`${app.base}/`, { redirect: 'manual' })
    expect([landing.status, landing.headers.get('location')]).toEqual([302, '/ui/'])
    const index = await fetch(`${app.base}/ui/`, { headers: { 'accept-encoding': 'br, gzip' } })
    expect(index.status, await index.clone().text()).toBe(200)
    expect(index.headers.get('cache-control')).toBe('no-cache')
    const html = await index.text()
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)![1]!
    const asset = await fetch(app.base + script, { headers: { 'accept-encoding': 'br' } })
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-encoding')).toBe('br')
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  })

  it('logs in with the portal session, shows the user and groups, logs out; a wrong password is said plainly', async () => {
    const page = await ui.page()
    await page.goto(`${app.base}/`)
    expect(page.url()).toBe(`${app.base}/ui/`)
    await screenshots(page, 'login')
    await page.getByLabel('Username').fill(TEST_ADMIN.username)
    await page.getByLabel('Password').fill('wrong-password')
    await page.getByRole('button', { name: 'Log in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Unknown username or wrong password')
    ui.problems.length = 0 // the refused login is expected, and the browser logs the 401
    await page.getByLabel('Password').fill(TEST_ADMIN.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await expect.poll(() => page.getByTestId('user').textContent()).toBe(TEST_ADMIN.username)
    await expect.poll(() => page.locator('.groups').textContent()).toContain('Platform Admin')
    await page.getByRole('button', { name: 'Log out' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('You have logged out')
    expect(ui.problems).toEqual([])
  })

  it('keyboard only: logs in, reaches the workbench editor with Tab (and leaves it), runs with Ctrl+Enter', async () => {
    const page = await ui.page()
    await page.goto(`${app.base}/`)
    await page.getByLabel('Username').waitFor()
    await page.keyboard.press('Tab')
    await page.keyboard.type(TEST_ADMIN.username)
    await page.keyboard.press('Tab')
    await page.keyboard.type(TEST_ADMIN.password)
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('user').textContent()).toBe(TEST_ADMIN.username)
    // Tab from the top of the landing page to the menu's Workbench, Enter, then on until the editor has the focus:
    // every stop on the way is named and shows it.
    const stops: string[] = []
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab')
      const stop = await focusedStop(page)
      stops.push(stop.name)
      expect(stop.name, `tab stop ${i}`).not.toBe('')
      expect(stop.visible, `focus shown on ${stop.name}`).toBe(true)
      if (stop.name === 'Workbench' && !page.url().endsWith('/ui/workbench')) {
        await page.keyboard.press('Enter')
        await page.getByRole('heading', { level: 1, name: /workbench/i }).waitFor()
      }
      if (stop.editor) break
    }
    expect(stops.at(-1)).toBe('HQL query')
    expect(stops).toContain('Log out')
    // Tab is not kept by the editor: it moves on to Run, and Shift+Tab comes back.
    await page.keyboard.press('Tab')
    expect((await focusedStop(page)).name).toBe('Run')
    await page.keyboard.press('Shift+Tab')
    expect((await focusedStop(page)).editor).toBe(true)
    await page.keyboard.press('Control+a')
    await page.keyboard.type('select c.code from Customer c order by c.code')
    await page.keyboard.press('Control+Enter')
    await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('50 rows')
    expect(ui.problems).toEqual([])
  })

  it('keyboard only: every Tab stop of each screen has a name and a visible focus', async () => {
    const page = await loggedIn('workbench')
    const missing: string[] = []
    for (const screen of ['workbench', 'expert', 'reports', 'catalog', 'order', 'prepaid', 'groups']) {
      await page.goto(`${app.base}/ui/${screen}`)
      await page.getByRole('heading', { level: 1 }).first().waitFor()
      await page.locator('body').focus()
      const seen = new Set<string>()
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab')
        const stop = await focusedStop(page)
        if (stop.body || seen.has(stop.id)) break
        seen.add(stop.id)
        if (stop.name === '' || !stop.visible) missing.push(`${screen}: ${stop.id} ${stop.name || '(no name)'}`)
      }
    }
    expect(missing).toEqual([])
  })

  it(
    'real paths: a deep link opens its screen, an old #/ link leads to its path, an unknown path says so',
    { timeout: 90_000 },
    async () => {
      const page = await loggedIn('expert')
      await page.getByRole('heading', { level: 1, name: /Expert/ }).waitFor()
      expect(await page.getByRole('link', { name: 'Expert SQL' }).getAttribute('aria-current')).toBe('page')
      await page.goto(`${app.base}/ui/#/groups`)
      await expect.poll(() => page.url()).toBe(`${app.base}/ui/groups`)
      await page.getByRole('heading', { name: 'Built-in groups' }).waitFor()
      await page.goto(`${app.base}/ui/no-such-screen`)
      await expect
        .poll(() => page.getByTestId('not-found').textContent())
        .toContain('There is no screen at /ui/no-such-screen')
      await page.getByRole('link', { name: 'start page' }).click()
      await expect.poll(() => page.url()).toBe(`${app.base}/ui/overview`)
      // The screen shown, as a person waits for it: the menu closes on each change of path, and the address changes
      // before the app has rendered the new path (a menu opened in between would close again).
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor()
      // A file that is not there stays a 404 (an asset of an older build), not the page.
      expect((await fetch(`${app.base}/ui/assets/gone-1234.js`)).status).toBe(404)
      // On a phone the menu is behind a button, and choosing a screen closes it.
      await page.setViewportSize({ width: 390, height: 844 })
      await page.getByRole('button', { name: 'Menu' }).click()
      await expect.poll(() => page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('true')
      await page.getByRole('link', { name: 'Groups' }).click()
      await page.getByRole('heading', { name: 'Built-in groups' }).waitFor()
      await expect.poll(() => page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded')).toBe('false')
      expect(await pageWidth(page)).toBeLessThanOrEqual(390)
      await screenshots(page, 'groups-after-menu')
      expect(ui.problems).toEqual([])
    },
  )

  it('sends a user whose session expired back to the login screen with a message', async () => {
    const page = await loggedIn('groups')
    await page.getByRole('heading', { name: 'Built-in groups' }).waitFor()
    await t.db.current.db.execute(sql`delete from obol_secrets.portal_session`)
    await page.reload()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Your session has expired')
    await screenshots(page, 'session-expired')
    ui.problems.length = 0 // the refused token request is the point of this test
  })

  it('sends a user back to login with a message when the session ends while a screen is open (no reload)', async () => {
    const page = await loggedIn('workbench')
    await page.getByLabel('HQL query').waitFor()
    // The page's clock, injected: the bearer token it holds runs out an hour later, and it asks the session again.
    await page.clock.install()
    await t.db.current.db.execute(sql`delete from obol_secrets.portal_session`)
    await page.clock.fastForward('01:00:00')
    await page.getByRole('button', { name: 'Run', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Your session has expired; log in again.')
    await expect.poll(() => page.getByLabel('Username').isVisible()).toBe(true)
    // Logging in again comes back to the screen that was open.
    await page.getByLabel('Username').fill(TEST_ADMIN.username)
    await page.getByLabel('Password').fill(TEST_ADMIN.password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await expect.poll(() => page.getByRole('heading', { level: 1 }).first().textContent()).toContain('Deep')
    ui.problems.length = 0 // the refused token request is the point of this test
  })

  it('workbench: runs a Deep query with Ctrl+Enter into a paged grid, shows an error with line and column, saves and reopens', async () => {
    const page = await loggedIn('workbench')
    const editor = page.getByLabel('HQL query')
    await editor.click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('select c.code, c.name from Customer c order by c.code')
    await page.keyboard.press('Control+Enter')
    await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('50 rows')
    await expect.poll(() => page.locator('.grid tbody tr').count()).toBe(25)
    await page.getByRole('button', { name: 'Next' }).click()
    await expect.poll(() => page.locator('.grid tbody tr').first().textContent()).toContain('CUST_026')
    // Sorting by a column goes back to the first page.
    await page.getByRole('button', { name: 'c.code' }).click()
    await page.getByRole('button', { name: 'c.code' }).click()
    await expect.poll(() => page.locator('.grid tbody tr').first().textContent()).toContain('CUST_050')
    await screenshots(page, 'workbench')

    // Completion from the schema: fields of the alias's entity after a dot.
    await editor.click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('select c.sel from Customer c')
    await page.keyboard.press('Home')
    for (let i = 0; i < 'select c.sel'.length; i++) await page.keyboard.press('ArrowRight')
    await page.keyboard.press('Control+Space')
    await expect.poll(() => page.locator('.cm-tooltip-autocomplete').textContent()).toContain('seller')
    await screenshots(page, 'workbench-completion')
    await page.keyboard.press('Escape')

    await page.keyboard.press('Control+a')
    await page.keyboard.type('select c code form Customer c')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Run', exact: true }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('line 1, column 10')
    // The cursor is put at the error: typing there inserts before 'code'.
    await page.keyboard.type('.')
    await expect.poll(() => page.locator('.cm-content').textContent()).toBe('select c .code form Customer c')
    await screenshots(page, 'workbench-error')
    problems400(1)

    await editor.click()
    await page.keyboard.press('Control+a')
    await page.keyboard.type('select b.code from BillingAccount b')
    await page.getByLabel('Name').fill('UI_BILLING')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Saved UI_BILLING')
    // Saving closes the completion list; the query reopens after a reload, and can be deleted.
    expect(await page.locator('.cm-tooltip-autocomplete').count()).toBe(0)
    await page.reload()
    await page.getByLabel('Saved queries').first().click()
    await page.getByRole('option', { name: 'UI_BILLING' }).click()
    await expect.poll(() => page.locator('.cm-content').textContent()).toBe('select b.code from BillingAccount b')
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Delete UI_BILLING' }).click()
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Deleted UI_BILLING')
    expect((await t.request('GET', '/api/v1/workbench/queries/UI_BILLING')).status).toBe(404)
    expect(ui.problems).toEqual([])
  })

  it('reports: lists saved report queries with type, visibility and tags, runs one and shows its rows', async () => {
    const page = await loggedIn('reports')
    const row = page.locator('tr', { hasText: 'SYS_CUSTOMERS_BY_SELLER' })
    await expect.poll(() => row.textContent()).toContain('VISUAL')
    await expect.poll(() => row.textContent()).toContain('PUBLIC')
    await page.getByRole('button', { name: 'Run SYS_CUSTOMERS_BY_SELLER' }).click()
    await expect.poll(() => page.getByTestId('row-count').last().textContent()).toMatch(/^[1-9]\d* rows?$/)
    await screenshots(page, 'reports')
    expect(ui.problems).toEqual([])
  })

  it('order preview: a billing account, an offer, a quantity and an attribute give rated lines and totals', async () => {
    const page = await loggedIn('order')
    await pick(page, 'Billing account', 'BA_001', /^BA_001/)
    await expect.poll(() => field(page, 'User account').inputValue()).toMatch(/^UA_001/)
    await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
    await pick(page, 'Service tier', '', 'GOLD')
    await pick(page, 'Region', '', 'EU')
    const rated = page.getByRole('region', { name: 'Rated lines' })
    const monthly = rated.locator('tr', { hasText: 'Internet access, monthly' })
    await expect.poll(() => monthly.textContent()).toContain('71.99')
    await expect.poll(() => rated.locator('tr', { hasText: 'Installation fee' }).textContent()).toContain('59.99')
    await pick(page, 'Service tier', '', 'BRONZE')
    await expect.poll(() => monthly.textContent()).toContain('29.99')
    await screenshots(page, 'order-preview')
    // A quantity the offer refuses is said plainly, naming the allowed range.
    await page.getByLabel('Quantity').fill('2')
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('quantities from 1 to 1')
    problems400(1)
    await screenshots(page, 'order-preview-refused')
  })

  it("order preview: discount plans picked for the offer and the product add the API's discount lines", async () => {
    const page = await loggedIn('order')
    await pick(page, 'Billing account', 'BA_002', /^BA_002/)
    await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
    await pick(page, 'Service tier', '', 'GOLD')
    await pick(page, 'Region', '', 'EU')
    const rated = page.getByRole('region', { name: 'Rated lines' })
    await expect
      .poll(() => rated.locator('tr', { hasText: 'Internet access, monthly' }).textContent())
      .toContain('71.99')
    const discounts = () =>
      rated
        .locator('tr.discount')
        .allTextContents()
        .then((l) => l.map(plain))
    await page.getByRole('checkbox', { name: 'Welcome: 10 % off' }).check()
    // The rated discount lines as the API returns them: 10 % of 49.99 and of 59.99, rounded to the cent.
    await expect
      .poll(discounts)
      .toEqual([
        '10 % off · discount DP_WELCOME_10One-time, at subscription-EUR 5.00-EUR 6.00',
        '10 % off · discount DP_WELCOME_10Recurring-EUR 6.00-EUR 7.20',
      ])
    await page.getByRole('checkbox', { name: 'Loyalty: 5 EUR off' }).check()
    await expect
      .poll(discounts)
      .toEqual([
        '10 % off · discount DP_WELCOME_10One-time, at subscription-EUR 5.00-EUR 6.00',
        '5 EUR off · discount DP_LOYALTY_5One-time, at subscription-EUR 5.00-EUR 6.00',
        '10 % off · discount DP_WELCOME_10Recurring-EUR 6.00-EUR 7.20',
      ])
    await screenshots(page, 'order-preview-discounts')
    expect(ui.problems).toEqual([])
  })

  it('order preview: places the order shown, validated at once, once per form', async () => {
    const page = await loggedIn('order')
    await pick(page, 'Billing account', 'BA_003', /^BA_003/)
    await pick(page, 'Offer', 'OF_INTERNET', /^OF_INTERNET ·/)
    await pick(page, 'Service tier', '', 'SILVER')
    await pick(page, 'Region', '', 'US')
    const rated = page.getByRole('region', { name: 'Rated lines' })
    await expect
      .poll(() => rated.locator('tr', { hasText: 'Internet access, monthly' }).textContent())
      .toContain('44.99')
    const place = page.getByRole('button', { name: 'Place the order' })
    await place.click()
    const placed = page.getByRole('region', { name: 'Place the order' }).getByRole('status')
    await expect
      .poll(() => placed.textContent().then(plain))
      .toMatch(/^Order (\S+) placed: VALIDATED; subscription \1-1 \(ACTIVE\)\.$/)
    expect(await place.isDisabled()).toBe(true)
    const code = /^Order (\S+) /.exec((await placed.textContent())!)![1]!
    const stored = await t.request('GET', `/api/v1/orders/${code}`)
    expect([stored.status, stored.body.status, stored.body.userAccountCode]).toEqual([200, 'VALIDATED', 'UA_003'])
    await screenshots(page, 'order-placed')
    expect(ui.problems).toEqual([])
  })

  it(
    'groups: built-in and custom groups with their roles; a custom group created through the portal',
    { timeout: 120_000 },
    async () => {
      const page = await loggedIn('groups')
      const builtIn = page.getByRole('region', { name: 'Built-in groups' })
      await expect.poll(() => builtIn.textContent()).toContain('Platform Admin')
      const custom = page.getByRole('region', { name: 'Custom groups' })
      await expect.poll(() => custom.textContent()).toContain('Query Administrators')
      await custom.getByText('Query Administrators').click()
      await expect.poll(() => custom.locator('.roles').textContent()).toContain('queryUser')
      await screenshots(page, 'groups')

      // A custom group through the portal endpoint (session cookie and CSRF header), then listed with its roles.
      await page.getByLabel('Group name').fill('Order Desk')
      await page.getByLabel('Description').fill('Previews and places orders')
      await page.getByLabel('ordering.orders.view').check()
      await page.getByLabel('ordering.orders.manage').check()
      await page.getByRole('button', { name: 'Create group' }).click()
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Created the group Order Desk')
      await custom.getByText('Order Desk').click()
      await expect
        .poll(() => custom.locator('details', { hasText: 'Order Desk' }).locator('.roles').textContent())
        .toBe('ordering.orders.manageordering.orders.view')
      const stored = await t.request('GET', '/api/v1/groups/Order%20Desk')
      expect([stored.status, stored.body.roles]).toEqual([200, ['ordering.orders.manage', 'ordering.orders.view']])
      await screenshots(page, 'groups-created')

      // Membership: the administrator joins the new group, then leaves it.
      const desk = custom.locator('details', { hasText: 'Order Desk' })
      await desk.getByLabel('User to add').first().click()
      await page.getByRole('option', { name: 'admin', exact: true }).click()
      await desk.getByRole('button', { name: 'Add member' }).click()
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Added admin to Order Desk.')
      await expect.poll(() => desk.locator('.members li').allTextContents()).toEqual(['admin Remove'])
      const joined = await t.request('GET', '/api/v1/groups/Order%20Desk')
      expect(joined.body.members).toEqual([{ username: 'admin', serviceAccount: false }])
      await screenshots(page, 'groups-membership')
      await desk.getByRole('button', { name: 'Remove admin from Order Desk' }).click()
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Removed admin from Order Desk.')
      await expect.poll(() => desk.locator('.members').textContent()).toContain('No members.')

      // Edited: renamed, a role taken away (roles grouped by domain, each described), then deleted; built-in read-only.
      await builtIn.getByText('Platform Admin').click()
      await expect.poll(() => builtIn.textContent()).toContain('A built-in group: its name and roles are fixed.')
      expect(await builtIn.getByRole('button', { name: /^Edit/ }).count()).toBe(0)
      await desk.getByRole('button', { name: 'Edit Order Desk' }).click()
      const form = page.getByRole('form', { name: 'Edit Order Desk' })
      await expect.poll(() => form.locator('fieldset legend').allTextContents()).toContain('Ordering 2 of 8')
      await expect.poll(() => form.textContent()).toContain('create, update and delete orders')
      await form.getByLabel('Name').fill('Order Viewers')
      await form.getByLabel('ordering.orders.manage').uncheck()
      await screenshots(page, 'groups-editing')
      await form.getByRole('button', { name: 'Save changes' }).click()
      await expect.poll(() => page.getByRole('status').textContent()).toBe('Saved the group Order Viewers.')
      const edited = await t.request('GET', '/api/v1/groups/Order%20Viewers')
      expect([edited.status, edited.body.roles]).toEqual([200, ['ordering.orders.view']])
      const viewers = custom.locator('details', { hasText: 'Order Viewers' })
      await viewers.getByRole('button', { name: 'Edit Order Viewers' }).click()
      page.once('dialog', (dialog) => void dialog.accept())
      await page.getByRole('form', { name: 'Edit Order Viewers' }).getByRole('button', { name: 'Delete group' }).click()
      await expect
        .poll(() => page.getByRole('status').first().textContent())
        .toContain('Deleted the group Order Viewers.')
      expect((await t.request('GET', '/api/v1/groups/Order%20Viewers')).status).toBe(404)
      await page.setViewportSize({ width: 390, height: 844 })
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390)
      expect(ui.problems).toEqual([])
    },
  )
})
