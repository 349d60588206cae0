/**
 * Invoicing benchmark (issue 38, item 9): a FULL_AUTOMATIC bill run (with accounting operations) of BENCH_OPERATIONS
 * wallet operations (default 1,000,000) over BENCH_ACCOUNTS billing accounts (default 10,000), on a real `obol start`
 * process (the built server with `npm start`'s settings) on a PostgreSQL server, against a hand-written SQL pipeline
 * doing the same work on a copy of the same data, in the same run. Prints both rates (wallet operations billed per
 * second; the server's timed from the run's creation to VALIDATED), their ratio (goal >= 0.5), and the server's
 * resident memory at rest and during the run, sampled every 200 ms (growth goal < 100 MB).
 *
 * The data: the demo tenant plus the volume generator with `accounts` (docs/decisions.md, "Volume generator"), every
 * operation OPEN, in its account's principal postpaid wallet, dated over the last two years; the new accounts are
 * moved to a billing cycle of their own (CYC_BENCH), so that the run bills exactly them. Generated once into a
 * database of its own, vacuumed and analyzed, then copied twice (CREATE DATABASE … TEMPLATE): one copy for the
 * server, one for the baseline. Both results are checked (every operation billed once, into a line whose sums are its
 * operations'; one validated invoice per account, numbered consecutively in billing account code order; taxes per
 * rate on the summed net; one accounting operation per invoice) and compared (the same lines, invoices, numbers,
 * taxes and accounting operations).
 *
 *   BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test): only its server is used; the databases are
 *     obol_bench_invoicing_<pid>_{data,obol,baseline}, dropped at the end (the data one kept with BENCH_KEEP=1).
 *   BENCH_DATA=<database>: start from a data database kept by an earlier run instead of generating one.
 *   BENCH_OPERATIONS (default 1000000), BENCH_ACCOUNTS (default 10000); BILL_RUN_BATCH_SIZE is passed to the server.
 */
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import path from 'node:path'
import pg from 'pg'
import { sql } from 'drizzle-orm'
import { systemClock } from '../src/kernel/clock.ts'
import { openPostgres } from '../src/kernel/db/database.ts'
import { migrate } from '../src/kernel/db/migrate.ts'
import { seedDemo } from '../src/seed.ts'
import { seedVolume } from '../src/seed-volume.ts'
import { adminToken, residentBytes, ROOT, startScript, waitReady } from './server.ts'

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const operationCount = Number(process.env.BENCH_OPERATIONS ?? 1_000_000)
const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 10_000)
const SECRET = 'bench-admin-secret-0123456789'
const CYCLE = 'CYC_BENCH'
/** Later than any generated operation (they are dated up to today): the run bills them all. */
const LAST_TRANSACTION_DATE = '2030-01-01'
const MB = 1024 * 1024

const urlOf = (database: string) => Object.assign(new URL(serverUrl), { pathname: `/${database}` }).href
const seconds = (since: number) => (performance.now() - since) / 1000
const say = (line: string) => process.stdout.write(`${line}\n`)

async function withClient<T>(database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlOf(database) })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/** The demo tenant, then the volume on new accounts, moved to CYC_BENCH; vacuumed and analyzed. */
async function generate(database: string): Promise<void> {
  const started = performance.now()
  const opened = openPostgres(urlOf(database), { max: 4 })
  try {
    await migrate(opened.db)
    await seedDemo(opened.db)
    let reported = 0
    await seedVolume(opened.db, {
      count: operationCount,
      accounts: accountCount,
      allOpen: true,
      clock: systemClock,
      onProgress: ({ written, total }) => {
        if (written - reported < total / 5 && written < total) return
        reported = written
        say(
          `  ${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} at ${seconds(started).toFixed(0)} s`,
        )
      },
    })
    await opened.db.execute(sql`insert into billing_cycle (code, description, calendar_id, creator)
      select ${CYCLE}, 'The invoicing benchmark''s accounts', calendar_id, 'bench' from billing_cycle
      where code = 'CYC_MONTHLY'`)
    await opened.db.execute(sql`update billing_account set billing_cycle_id = (select id from billing_cycle
      where code = ${CYCLE}) where code like 'BA\\_VOL\\_%'`)
  } finally {
    await opened.close()
  }
  const generated = seconds(started)
  await withClient(database, (client) => client.query('vacuum analyze'))
  say(`  generated in ${generated.toFixed(0)} s, vacuum analyze ${(seconds(started) - generated).toFixed(0)} s`)
}

interface ObolRun {
  runId: number
  seconds: number
  steps: string[]
  rssBefore: number
  rssPeak: number
  rssAfter: number
  samples: number
}

/** A FULL_AUTOMATIC run of CYC_BENCH on an `obol start` process on `database`, polled until VALIDATED. */
async function runObol(database: string): Promise<ObolRun> {
  const { env, nodeFlags } = startScript({ DATABASE_URL: urlOf(database) })
  const port = 18_600 + (process.pid % 1000)
  const child = spawn(process.execPath, [...nodeFlags, path.join(ROOT, 'bin', 'obol.js'), 'start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: urlOf(database),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OBOL_ADMIN_CLIENT_SECRET: SECRET,
      OBOL_SKIP_UI_BUILD: '1',
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const base = `http://127.0.0.1:${port}`
  let sampler: NodeJS.Timeout | undefined
  try {
    await waitReady(base, child, () => output)
    const headers = { authorization: `Bearer ${await adminToken(base, SECRET)}`, 'content-type': 'application/json' }
    // At rest first, as bench:memory measures it.
    await new Promise((resolve) => setTimeout(resolve, 5000))
    const rssBefore = residentBytes(child.pid!)
    const samples: number[] = []
    sampler = setInterval(() => samples.push(residentBytes(child.pid!)), 200)
    const started = performance.now()
    const created = await fetch(`${base}/api/v1/billingRuns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        billingCycle: CYCLE,
        processType: 'FULL_AUTOMATIC',
        generateAO: true,
        lastTransactionDate: LAST_TRANSACTION_DATE,
      }),
    })
    assert.equal(
      created.status,
      201,
      `creating the bill run answered ${created.status}: ${await created.clone().text()}`,
    )
    const runId = ((await created.json()) as { id: number }).id
    const steps: string[] = []
    let step: string | null | undefined
    for (;;) {
      const response = await fetch(`${base}/api/v1/billingRuns/${runId}`, { headers })
      assert.equal(response.status, 200)
      const run = (await response.json()) as {
        status: string
        lastError: string | null
        progress: { step: string | null; done: number; total: number }
      }
      if (run.progress.step !== step) {
        step = run.progress.step
        steps.push(`${(step ?? run.status).padEnd(22)} from ${seconds(started).toFixed(1).padStart(6)} s`)
        say(`  ${steps.at(-1)!}`)
      }
      if (run.status === 'VALIDATED') break
      assert.ok(['NEW', 'INVOICE_LINES_CREATED', 'DRAFT_INVOICES'].includes(run.status), JSON.stringify(run))
      assert.ok(seconds(started) < 1800, `the run did not end in 30 minutes: ${JSON.stringify(run)}`)
      if (run.lastError) say(`  lastError: ${run.lastError}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    clearInterval(sampler)
    const rssAfter = residentBytes(child.pid!)
    // The run's own times, on the database clock: from its creation to the end of its last step.
    const timed = await withClient(database, (client) =>
      client.query<{ s: number }>(
        'select extract(epoch from ended_at - created)::float8 as s from billing_run where id = $1',
        [runId],
      ),
    )
    return {
      runId,
      seconds: timed.rows[0]!.s,
      steps,
      rssBefore,
      rssPeak: Math.max(rssBefore, ...samples),
      rssAfter,
      samples: samples.length,
    }
  } finally {
    clearInterval(sampler)
    child.kill('SIGTERM')
    await exited
  }
}

interface Statement {
  name: string
  text: string
}

/**
 * The hand-written pipeline: the same work as the bill run, as plain statements over all the accounts at once in one
 * transaction, its parameters named (:run, :date the invoice date, :cycle, :cutoff the day before which operations
 * are billed). Lines group by the run's default key
 * (billing account, seller, currency, article, tax and rate, unit price, subscription, order).
 */
const PIPELINE: Statement[] = [
  {
    name: 'lines (INSERT … SELECT … GROUP BY)',
    text: `insert into invoice_line (billing_run_id, billing_account_id, seller_id, currency_id, accounting_article_id,
        tax_id, tax_percent, subscription_id, order_id, label, quantity, unit_amount_without_tax, amount_without_tax,
        amount_tax, amount_with_tax, period_start, period_end, wallet_operation_count)
      select :run, w.billing_account_id, w.seller_id, w.currency_id, w.accounting_article_id, w.tax_id, w.tax_percent,
        w.subscription_id, w.order_id,
        case when count(*) = 1 and min(w.description) is not null then min(w.description)
          else coalesce(a.description, a.code) end,
        sum(w.quantity), w.unit_amount_without_tax, sum(w.amount_without_tax), sum(w.amount_tax),
        sum(w.amount_with_tax), min(coalesce(w.start_date, w.operation_date)),
        max(coalesce(w.end_date - 1, w.operation_date)), count(*)
      from wallet_operation w join wallet wl on wl.id = w.wallet_id
      join billing_account ba on ba.id = w.billing_account_id
      join accounting_article a on a.id = w.accounting_article_id
      where ba.billing_cycle_id = :cycle and w.status = 'OPEN' and w.operation_date < :cutoff
        and wl.wallet_type <> 'PREPAID'
      group by w.billing_account_id, w.seller_id, w.currency_id, w.accounting_article_id, w.tax_id, w.tax_percent,
        w.unit_amount_without_tax, w.subscription_id, w.order_id, a.description, a.code`,
  },
  {
    name: 'operations BILLED with their line',
    text: `update wallet_operation w set status = 'BILLED', billing_run_id = :run, invoice_line_id = l.id
      from invoice_line l, wallet wl
      where l.billing_run_id = :run and w.billing_account_id = l.billing_account_id and w.seller_id = l.seller_id
        and w.currency_id = l.currency_id and w.accounting_article_id = l.accounting_article_id
        and w.tax_id = l.tax_id and w.tax_percent = l.tax_percent
        and w.unit_amount_without_tax = l.unit_amount_without_tax and w.subscription_id = l.subscription_id
        and w.order_id is not distinct from l.order_id
        and w.status = 'OPEN' and w.operation_date < :cutoff and wl.id = w.wallet_id and wl.wallet_type <> 'PREPAID'`,
  },
  {
    name: 'invoices',
    text: `insert into invoice (invoice_type, status, billing_run_id, billing_account_id, customer_account_id, seller_id,
        currency_id, invoice_date, due_date, period_start, period_end, creator)
      select 'INVOICE', 'DRAFT', :run, l.billing_account_id, ba.customer_account_id, l.seller_id, l.currency_id, :date,
        :date + c.due_date_delay, min(l.period_start), max(l.period_end), 'baseline'
      from invoice_line l join billing_account ba on ba.id = l.billing_account_id
      join billing_cycle c on c.id = ba.billing_cycle_id
      where l.billing_run_id = :run
      group by l.billing_account_id, ba.customer_account_id, l.seller_id, l.currency_id, c.due_date_delay`,
  },
  {
    name: 'lines attached to their invoice',
    text: `update invoice_line l set invoice_id = i.id from invoice i
      where l.billing_run_id = :run and i.billing_run_id = :run and i.billing_account_id = l.billing_account_id
        and i.seller_id = l.seller_id and i.currency_id = l.currency_id`,
  },
  {
    name: 'taxes per rate, round(rate × Σ net)',
    text: `insert into invoice_tax (invoice_id, tax_id, tax_percent, base, amount)
      select l.invoice_id, l.tax_id, l.tax_percent, sum(l.amount_without_tax),
        round(l.tax_percent / 100 * sum(l.amount_without_tax), cur.decimal_places)
      from invoice_line l join invoice i on i.id = l.invoice_id join trading_currency cur on cur.id = i.currency_id
      where l.billing_run_id = :run
      group by l.invoice_id, l.tax_id, l.tax_percent, cur.decimal_places`,
  },
  {
    name: 'invoice totals',
    text: `update invoice i set amount_without_tax = t.base, amount_tax = t.tax, amount_with_tax = t.base + t.tax
      from (select x.invoice_id, sum(x.base) as base, sum(x.amount) as tax from invoice_tax x
        join invoice j on j.id = x.invoice_id where j.billing_run_id = :run group by x.invoice_id) t
      where i.id = t.invoice_id`,
  },
  {
    name: 'numbers by row_number() in account code order',
    text: `with counter as (
        insert into invoice_sequence_counter (sequence_id, period_key, value)
        select q.id, '', (select count(*) from invoice where billing_run_id = :run) from invoice_sequence q
        where q.seller_id is null and q.invoice_type = 'INVOICE'
        on conflict (sequence_id, period_key) do update
          set value = invoice_sequence_counter.value + excluded.value
        returning value - (select count(*) from invoice where billing_run_id = :run) as taken
      ), ordered as (
        select i.id, row_number() over (order by ba.code, se.code, cur.code, i.id) as n
        from invoice i join billing_account ba on ba.id = i.billing_account_id join seller se on se.id = i.seller_id
        join trading_currency cur on cur.id = i.currency_id where i.billing_run_id = :run
      )
      update invoice i set status = 'VALIDATED', validated_at = now(),
        invoice_number = 'INV-' || to_char(i.invoice_date, 'YYYY') || '-' || lpad((counter.taken + o.n)::text, 6, '0')
      from ordered o, counter where i.id = o.id`,
  },
  {
    name: 'accounting operations',
    text: `insert into account_operation (operation_type, direction, customer_account_id, seller_id, invoice_id,
        currency_id, reference, transaction_date, due_date, amount, unmatched_amount, matching_status, creator)
      select 'INVOICE', 'DEBIT', i.customer_account_id, i.seller_id, i.id, i.currency_id, i.invoice_number,
        i.invoice_date, i.due_date, i.amount_with_tax, i.amount_with_tax, 'O', 'baseline'
      from invoice i where i.billing_run_id = :run`,
  },
]

/** A statement's :name parameters as $1, $2… with their typed values (each parameter once, in order of appearance). */
function positional(text: string, values: Record<string, unknown>): [string, unknown[]] {
  const types: Record<string, string> = { run: 'bigint', date: 'date', cycle: 'bigint', cutoff: 'date' }
  const order: string[] = []
  const numbered = text.replace(/:(run|date|cycle|cutoff)\b/g, (_match, name: string) => {
    if (!order.includes(name)) order.push(name)
    return `$${order.indexOf(name) + 1}::${types[name]!}`
  })
  return [numbered, order.map((name) => values[name])]
}

/** The pipeline on `database`, timed statement by statement (its run a billing_run row of its own). */
async function runBaseline(database: string, invoiceDate: string) {
  return withClient(database, async (client) => {
    const cycle = await client.query<{ id: string }>('select id from billing_cycle where code = $1', [CYCLE])
    const started = performance.now()
    await client.query('begin')
    const run = await client.query<{ id: string }>(
      `insert into billing_run (description, status, billing_cycle_id, process_type, last_transaction_date,
        invoice_date, generate_ao, started_at, creator)
      values ('baseline', 'NEW', $1, 'FULL_AUTOMATIC', $2, $3, true, now(), 'baseline') returning id`,
      [cycle.rows[0]!.id, LAST_TRANSACTION_DATE, invoiceDate],
    )
    const runId = Number(run.rows[0]!.id)
    const timings: string[] = []
    const values = { run: runId, date: invoiceDate, cycle: cycle.rows[0]!.id, cutoff: LAST_TRANSACTION_DATE }
    for (const statement of PIPELINE) {
      const before = performance.now()
      const done = await client.query(...positional(statement.text, values))
      timings.push(
        `${statement.name.padEnd(48)} ${seconds(before).toFixed(1).padStart(6)} s  ${String(done.rowCount).padStart(9)} rows`,
      )
    }
    await client.query(`update billing_run set status = 'VALIDATED', ended_at = now() where id = $1`, [runId])
    await client.query('commit')
    return { runId, seconds: seconds(started), timings }
  })
}

interface Checked {
  operations: number
  billed: number
  lines: number
  invoices: number
  digests: Record<string, string>
}

/**
 * What a run produced, checked: every operation of the cycle BILLED by it once, into a line whose count and sums are
 * its operations'; one VALIDATED invoice per account, numbered consecutively in billing account code order, whose
 * net is its lines', whose tax is its per-rate taxes', each round(rate × Σ nets of that rate); one open DEBIT
 * accounting operation of its gross per invoice. Returns digests of what the two sides must have alike.
 */
async function check(database: string, runId: number): Promise<Checked> {
  return withClient(database, async (client) => {
    // The run's tables as the planner should see them now (not as before the run), or a join of 10,000 invoices
    // planned for one takes minutes.
    await client.query('analyze invoice, invoice_line, invoice_tax, account_operation')
    const found = await client.query<Record<string, number>>(
      `with ops as (select count(*)::int as operations,
          count(*) filter (where w.status = 'BILLED' and w.billing_run_id = $1 and w.invoice_line_id is not null)::int
            as billed,
          count(distinct w.billing_account_id)::int as accounts
          from wallet_operation w join billing_account ba on ba.id = w.billing_account_id
          where ba.billing_cycle_id = (select id from billing_cycle where code = $2)),
        run_invoices as (select i.*, substring(i.invoice_number from '\\d+$')::int as seq from invoice i
          where i.billing_run_id = $1)
      select
        (select operations from ops) as operations,
        (select billed from ops) as billed,
        (select count(*)::int from invoice_line where billing_run_id = $1) as lines,
        (select coalesce(sum(wallet_operation_count), 0)::int from invoice_line where billing_run_id = $1) as counted,
        (select count(*)::int from invoice_line l left join (select invoice_line_id, count(*) as n, sum(quantity) as q,
            sum(amount_without_tax) as net, sum(amount_tax) as tax, sum(amount_with_tax) as gross
            from wallet_operation where billing_run_id = $1 group by invoice_line_id) o on o.invoice_line_id = l.id
          where l.billing_run_id = $1 and (o.n is distinct from l.wallet_operation_count or o.q <> l.quantity
            or o.net <> l.amount_without_tax or o.tax <> l.amount_tax or o.gross <> l.amount_with_tax)) as wrong_lines,
        (select accounts from ops) as accounts,
        (select count(*)::int from run_invoices) as invoices,
        (select count(*)::int from run_invoices where status = 'VALIDATED') as validated,
        (select count(distinct invoice_number)::int from run_invoices) as numbers,
        (select (max(seq) - min(seq) + 1)::int from run_invoices) as span,
        (select count(*)::int from (select seq - min(seq) over () + 1 as at,
            row_number() over (order by ba.code) as rn from run_invoices i
            join billing_account ba on ba.id = i.billing_account_id) o where at <> rn) as out_of_order,
        (select count(*)::int from run_invoices i
          where i.amount_without_tax <> (select sum(amount_without_tax) from invoice_line where invoice_id = i.id)
            or i.amount_tax <> (select sum(amount) from invoice_tax where invoice_id = i.id)
            or i.amount_with_tax <> i.amount_without_tax + i.amount_tax) as wrong_totals,
        (select count(*)::int from invoice_tax x join run_invoices i on i.id = x.invoice_id
          where x.amount <> round(x.base * x.tax_percent / 100, 2)
            or x.base <> (select sum(l.amount_without_tax) from invoice_line l where l.invoice_id = i.id
              and l.tax_id = x.tax_id and l.tax_percent = x.tax_percent)) as wrong_taxes,
        (select count(*)::int from account_operation a join run_invoices i on i.id = a.invoice_id
          where a.amount = i.amount_with_tax and a.unmatched_amount = i.amount_with_tax and a.direction = 'DEBIT'
            and a.reference = i.invoice_number and a.matching_status = 'O') as account_operations`,
      [runId, CYCLE],
    )
    const c = found.rows[0]!
    const expected = {
      ...c,
      billed: c.operations,
      counted: c.operations,
      wrong_lines: 0,
      invoices: c.accounts,
      validated: c.accounts,
      numbers: c.accounts,
      span: c.accounts,
      out_of_order: 0,
      wrong_totals: 0,
      wrong_taxes: 0,
      account_operations: c.accounts,
    }
    assert.deepEqual(c, expected, `${database}: the run's result is wrong`)
    // Amounts at one scale: the server writes the totals from decimal.js, the pipeline from SQL sums.
    const digests = await client.query<Record<string, string>>(
      `select
        (select md5(string_agg(r, ',' order by r)) from (select concat_ws(' ', ba.code, l.accounting_article_id,
            l.tax_id, l.tax_percent::numeric(38,12), l.subscription_id, l.order_id, l.label, l.quantity::numeric(38,12),
            l.unit_amount_without_tax::numeric(38,12), l.amount_without_tax::numeric(38,12),
            l.amount_tax::numeric(38,12), l.amount_with_tax::numeric(38,12), l.period_start, l.period_end,
            l.wallet_operation_count, i.invoice_number) as r
          from invoice_line l join billing_account ba on ba.id = l.billing_account_id
          join invoice i on i.id = l.invoice_id where l.billing_run_id = $1) r) as lines,
        (select md5(string_agg(r, ',' order by r)) from (select concat_ws(' ', ba.code, i.invoice_number, i.status,
            i.invoice_date, i.due_date, i.period_start, i.period_end, i.amount_without_tax::numeric(38,12),
            i.amount_tax::numeric(38,12), i.amount_with_tax::numeric(38,12)) as r
          from invoice i join billing_account ba on ba.id = i.billing_account_id where i.billing_run_id = $1) r)
          as invoices,
        (select md5(string_agg(r, ',' order by r)) from (select concat_ws(' ', i.invoice_number, x.tax_id,
            x.tax_percent::numeric(38,12), x.base::numeric(38,12), x.amount::numeric(38,12)) as r
          from invoice_tax x join invoice i on i.id = x.invoice_id where i.billing_run_id = $1) r) as taxes,
        (select md5(string_agg(r, ',' order by r)) from (select concat_ws(' ', a.reference, a.operation_type,
            a.direction, a.customer_account_id, a.transaction_date, a.due_date, a.amount::numeric(38,12),
            a.unmatched_amount::numeric(38,12)) as r
          from account_operation a join invoice i on i.id = a.invoice_id where i.billing_run_id = $1) r)
          as accounting_operations`,
      [runId],
    )
    return {
      operations: c.operations!,
      billed: c.billed!,
      lines: c.lines!,
      invoices: c.invoices!,
      digests: digests.rows[0]!,
    }
  })
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`
const rate = (rows: number, s: number) => `${Math.round(rows / s).toLocaleString('en-US')} operations/s`

/** Where the benchmark's own time goes, phase by phase. */
const phases: string[] = []
async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await work()
  phases.push(`${name} ${seconds(started).toFixed(0)} s`)
  return result
}

async function main(): Promise<void> {
  const started = performance.now()
  // The built server, fresh: `npm start` would build it the same way (not in the measured process).
  const built = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'build.js')], { stdio: 'inherit' })
  assert.equal(built.status, 0, 'bin/build.js failed')
  const admin = new pg.Client({ connectionString: urlOf('postgres') })
  await admin.connect()
  const prefix = `obol_bench_invoicing_${process.pid}`
  const data = process.env.BENCH_DATA ?? `${prefix}_data`
  const copies = { obol: `${prefix}_obol`, baseline: `${prefix}_baseline` }
  const created: string[] = []
  try {
    if (!process.env.BENCH_DATA) {
      say(
        `Generating ${operationCount.toLocaleString('en-US')} wallet operations over ${accountCount.toLocaleString('en-US')} billing accounts in ${data}...`,
      )
      await admin.query(`create database ${data}`)
      created.push(data)
      await phase('data', () => generate(data))
    }
    await phase('copies', async () => {
      for (const copy of Object.values(copies)) {
        await admin.query(`create database ${copy} template ${data}`)
        created.push(copy)
      }
    })
    const size = await admin.query<{ size: string }>('select pg_size_pretty(pg_database_size($1)) as size', [data])

    say('Bill run on the server:')
    const obol = await phase('server (started, run, stopped)', () => runObol(copies.obol))
    const obolResult = await phase('its check', () => check(copies.obol, obol.runId))
    const invoiceDate = await withClient(copies.obol, (client) =>
      client.query<{ day: string }>(
        `select distinct to_char(invoice_date, 'YYYY-MM-DD') as day from invoice where billing_run_id = $1`,
        [obol.runId],
      ),
    )
    assert.equal(invoiceDate.rows.length, 1, 'the run dates its invoices alike')

    say('Hand-written SQL pipeline:')
    const baseline = await phase('pipeline', () => runBaseline(copies.baseline, invoiceDate.rows[0]!.day))
    for (const line of baseline.timings) say(`  ${line}`)
    const baselineResult = await phase('its check', () => check(copies.baseline, baseline.runId))
    assert.deepEqual(
      { ...baselineResult, digests: undefined },
      { ...obolResult, digests: undefined },
      'both sides bill the same operations into as many lines and invoices',
    )
    for (const [name, digest] of Object.entries(obolResult.digests))
      assert.equal(baselineResult.digests[name], digest, `both sides must produce the same ${name}`)

    const ratio = obolResult.billed / obol.seconds / (baselineResult.billed / baseline.seconds)
    const growth = obol.rssPeak - obol.rssBefore
    say(
      [
        '',
        `Invoicing, ${obolResult.billed.toLocaleString('en-US')} wallet operations billed into ${obolResult.lines.toLocaleString('en-US')} lines and ${obolResult.invoices.toLocaleString('en-US')} validated invoices with accounting operations (PostgreSQL, ${size.rows[0]!.size} of data; BILL_RUN_BATCH_SIZE ${process.env.BILL_RUN_BATCH_SIZE ?? 'default (500)'}):`,
        `  Obol, FULL_AUTOMATIC bill run       ${obol.seconds.toFixed(1).padStart(7)} s  ${rate(obolResult.billed, obol.seconds)}`,
        ...obol.steps.map((s) => `    ${s}`),
        `  hand-written SQL pipeline           ${baseline.seconds.toFixed(1).padStart(7)} s  ${rate(baselineResult.billed, baseline.seconds)}`,
        `  ratio Obol / hand-written SQL: ${ratio.toFixed(2)} (goal >= 0.5)`,
        `  server resident memory: at rest ${mb(obol.rssBefore)}, peak during the run ${mb(obol.rssPeak)} (${obol.samples} samples), after ${mb(obol.rssAfter)}: growth ${mb(growth)} (goal < 100 MB)`,
        '  checked on both sides: every operation billed once, line sums = operation sums, numbers consecutive in account code order, taxes per rate, an accounting operation per invoice; lines, invoices, taxes and accounting operations identical',
        `  whole benchmark: ${seconds(started).toFixed(0)} s (${phases.join(', ')})`,
      ].join('\n'),
    )
  } finally {
    const keep = process.env.BENCH_KEEP === '1' ? [data] : []
    for (const name of created.filter((n) => !keep.includes(n)))
      await admin.query(`drop database if exists ${name} with (force)`)
    if (keep.length > 0) say(`Kept ${data} (BENCH_DATA=${data} starts from it)`)
    await admin.end()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
