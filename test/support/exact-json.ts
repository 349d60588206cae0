import type { TestApp } from './test-app.ts'

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown

/**
 * Parses a response keeping every JSON number as its text on the wire (`"1234567890123456.78"`), so tests compare
 * what was written, not what a double makes of it.
 */
export function parseNumbersAsText(text: string): any {
  const reviver: Reviver = (_key, value, context) => (typeof value === 'number' ? context!.source : value)
  return JSON.parse(text, reviver)
}

/** Sends a JSON body as written (numbers a double cannot hold included) as the test admin; answers status and text. */
export async function requestText(
  t: TestApp,
  method: string,
  url: string,
  body?: string,
): Promise<{ status: number; text: string; body: any }> {
  const response = await t.app.server.inject({
    method: method as 'POST',
    url,
    headers: {
      authorization: `Bearer ${t.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: body }),
  })
  return { status: response.statusCode, text: response.body, body: parseNumbersAsText(response.body) }
}
