import pg from 'pg'

/**
 * Lists the statements each request sends (`BENCH_STATEMENTS=1`): every query the pool's clients send while `request`
 * runs is counted and printed under `name`, its text on one line, cut at 110 characters.
 */
export async function printStatements(name: string, request: () => Promise<unknown>): Promise<void> {
  const sent: string[] = []
  const query = Reflect.get(pg.Client.prototype, 'query') as (...a: unknown[]) => unknown
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0]
    sent.push((typeof first === 'string' ? first : (first as { text: string }).text).replace(/\s+/g, ' ').slice(0, 110))
    return query.apply(this, args)
  } as typeof pg.Client.prototype.query
  try {
    await request()
  } finally {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query
  }
  process.stdout.write(`${name}: ${sent.length} statements\n  ${sent.join('\n  ')}\n`)
}
