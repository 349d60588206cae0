import { describe, expect, it } from 'vitest'
import { pageWidth, screenshots, WIDTHS } from './browser.ts'
import { useUiApp } from './ui-app.ts'
import { useWebhookReceiver } from '../support/webhook-receiver.ts'

// The webhooks screen in Chromium against a real receiver on loopback (the app allows private targets here): an
// endpoint created with its event types, its secret shown once, a test event really delivered, rotated, retried
// and replayed.
const app = useUiApp({ env: { WEBHOOK_PRIVATE_TARGETS: 'allow' } })
const receiver = useWebhookReceiver()

describe('the webhooks screen', () => {
  it('creates an endpoint, shows its secret once, delivers a test event, rotates, sends again and replays', async () => {
    const page = await app.loggedIn('settings/webhooks')
    await expect.poll(() => page.getByTestId('empty').first().textContent()).toContain('No endpoints yet')
    const form = page.getByRole('form', { name: 'New endpoint' })
    await form.getByLabel('URL').fill(`${receiver.base}/ui-hooks`)
    await form.getByLabel('Description').fill('The accounting system')
    await form.getByLabel('Event types').click()
    await page.getByRole('option', { name: 'webhook.test' }).click()
    await page.getByRole('option', { name: 'invoice.validated' }).click()
    await page.keyboard.press('Escape')
    await screenshots(page, 'webhooks-new')
    await form.getByRole('button', { name: 'Create the endpoint' }).click()

    const secret = page.getByTestId('secret')
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const first = await secret.textContent()
    await screenshots(page, 'webhooks-secret')
    await page.getByRole('button', { name: 'I have kept it' }).click()
    await expect.poll(() => secret.count()).toBe(0)

    const endpoint = page.getByRole('article', { name: `Endpoint ${receiver.base}/ui-hooks` })
    await expect.poll(() => endpoint.textContent()).toContain('No deliveries yet')
    // The receiver's first answer is a 503 asking for an hour: the delivery waits, and is sent again at once by hand.
    receiver.scripts.set('/ui-hooks', [{ status: 503, headers: { 'retry-after': '3600' } }])
    await endpoint.getByRole('button', { name: 'Send a test event' }).click()
    await expect.poll(() => endpoint.getByRole('status').textContent()).toMatch(/^Test event evt_\S+ sent\.$/)
    const delivery = endpoint.getByTestId('delivery').first()
    await expect.poll(() => delivery.textContent(), { timeout: 20_000 }).toContain('503')
    expect(await delivery.textContent()).toContain('Retrying')
    await screenshots(page, 'webhooks-retrying')
    await delivery.getByRole('button', { name: 'Send webhook.test again now' }).click()
    await expect.poll(() => delivery.textContent(), { timeout: 20_000 }).toContain('Succeeded')
    expect(await delivery.locator('td').nth(2).textContent()).toBe('2')
    expect(await delivery.textContent()).toContain('200: ok from the receiver')
    const arrived = await receiver.arrivals('/ui-hooks', 2)
    expect(arrived.map((r) => JSON.parse(r.body).type)).toEqual(['webhook.test', 'webhook.test'])
    expect(arrived[1]!.headers['webhook-id']).toBe(arrived[0]!.headers['webhook-id'])
    await screenshots(page, 'webhooks-delivered')
    await page.setViewportSize(WIDTHS.phone)
    expect(await pageWidth(page)).toBeLessThanOrEqual(390)
    await page.setViewportSize(WIDTHS.desktop)

    await endpoint.getByRole('button', { name: 'Rotate the secret' }).click()
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_/)
    expect(await secret.textContent()).not.toBe(first)
    await page.getByRole('button', { name: 'I have kept it' }).click()

    await endpoint.getByRole('button', { name: 'Replay a time range…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Replay events' })
    await dialog.getByRole('button', { name: 'Replay' }).click()
    await expect.poll(() => dialog.getByRole('status').textContent()).toMatch(/created again\.$|No event of that range/)
    await screenshots(page, 'webhooks-replay')
    await dialog.getByRole('button', { name: 'Close' }).click()
    expect(app.ui.problems).toEqual([])
  }, 180_000)
})
