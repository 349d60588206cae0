import type { Page } from 'playwright-core'

/** The input of a Mantine field by its label (its dropdown's list is labelled by it too). */
export const field = (page: Page, label: string) => page.locator('input').and(page.getByLabel(label, { exact: true }))

/** Types into a searchable picker (nothing for a short list) and chooses the option that shows up. */
export async function pick(page: Page, label: string, typed: string, option: RegExp | string): Promise<void> {
  const input = field(page, label)
  await input.click()
  // A list of a few values is not searchable: it is chosen from as it opens.
  if (typed !== '') await input.fill(typed)
  await page.getByRole('option', { name: option, exact: true }).click()
}

/** Text as a person reads it: money is written with a no-break space (`EUR 59.99`). */
export const plain = (text: string | null): string => (text ?? '').replace(/\u00a0/g, ' ')

/** Replaces the SQL editor's text by typing, as a person would. */
export async function write(page: Page, text: string): Promise<void> {
  await page.getByLabel('SQL query').click()
  await page.keyboard.press('Control+a')
  await page.keyboard.type(text)
}
