import { sql } from 'drizzle-orm'
import { withTransaction } from '../../kernel/db/transaction.ts'
import { one, type Db } from '../../kernel/db/database.ts'

const FIRST = ['Ada', 'Blaise', 'Claude', 'Dora', 'Emmy', 'Felix', 'Grace', 'Hugo', 'Ines', 'Jules']
/** The title each first name goes with. */
const TITLES = ['MS', 'MR', 'MR', 'MS', 'MS', 'MR', 'MS', 'MR', 'MS', 'MR']
const LAST = ['Lovelace', 'Pascal', 'Shannon', 'Noether', 'Klein', 'Hopper', 'Curie', 'Germain', 'Turing', 'Verne']

/** A made-up postal address in each demo country (street number `n`). */
const ADDRESSES: Record<string, { line1: (n: number) => string; line2: string | null; zip: string; city: string }> = {
  FR: { line1: (n) => `${n} avenue des Ternes`, line2: null, zip: '75017', city: 'Paris' },
  DE: { line1: (n) => `Friedrichstraße ${n}`, line2: 'Aufgang B', zip: '10117', city: 'Berlin' },
  US: { line1: (n) => `${n} Market Street`, line2: 'Suite 400', zip: 'CA 94103', city: 'San Francisco' },
  GB: { line1: (n) => `${n} Baker Street`, line2: null, zip: 'NW1 6XE', city: 'London' },
}
/**
 * `length` made-up digits for customer `i`, without a 0: a demo code's number (`007`) is never found in another
 * customer's VAT number by a full-text search.
 */
function digits(i: number, length: number): string {
  let n = i * 7919 + 1013
  let text = ''
  while (text.length < length) {
    n = (n * 31 + 17) % 1_000_003
    text += String((n % 9) + 1)
  }
  return text
}

/** A made-up VAT number of the shape of the country's (none in the US, which has no VAT). */
const vatNumber = (country: string, i: number) =>
  ({ FR: `FR${digits(i, 11)}`, DE: `DE${digits(i, 9)}`, GB: `GB${digits(i, 9)}` })[country] ?? null

/**
 * A coherent demo tenant: currencies, countries, languages, titles, taxes (NORMAL = 20 %), the MONTHLY calendar, a
 * billing cycle, invoice categories, accounting articles, one seller and 50 customers with full account hierarchies.
 * Idempotent: does nothing when the MAIN seller exists.
 */
export async function seedAccountsDemo(db: Db): Promise<{ created: boolean }> {
  return withTransaction(db, async (tx) => {
    const existing = await one(tx, sql`select id from seller where code = 'MAIN'`)
    if (existing) return { created: false }
    // Text outside ASCII goes in as parameters, not in the statements' text: the built server's source then holds
    // only ASCII (esbuild escapes it in plain strings, not in tagged templates), which V8 keeps at one byte a
    // character instead of two for the whole 1 MB file (bin/build.js).
    const statements = [
      sql`insert into trading_currency (code, description, symbol, decimal_places, creator) values
        ('EUR', 'Euro', ${'€'}, 2, 'demo'), ('USD', 'US Dollar', '$', 2, 'demo'), ('GBP', 'Pound sterling', ${'£'}, 2, 'demo')
        on conflict (code) do nothing`,
      sql`insert into country (code, description, currency_id, creator) values
        ('FR', 'France', (select id from trading_currency where code = 'EUR'), 'demo'),
        ('DE', 'Germany', (select id from trading_currency where code = 'EUR'), 'demo'),
        ('US', 'United States', (select id from trading_currency where code = 'USD'), 'demo'),
        ('GB', 'United Kingdom', (select id from trading_currency where code = 'GBP'), 'demo')
        on conflict (code) do nothing`,
      sql`insert into language (code, description, creator) values ('ENG', 'English', 'demo'), ('FRA', 'French', 'demo'), ('DEU', 'German', 'demo')
        on conflict (code) do nothing`,
      sql`insert into title (code, description, is_company, creator) values
        ('MR', 'Mr', false, 'demo'), ('MRS', 'Mrs', false, 'demo'), ('MS', 'Ms', false, 'demo'),
        ('COMPANY', 'Company', true, 'demo')
        on conflict (code) do nothing`,
      sql`insert into tax (code, description, percent, creator) values
        ('TAX_20', 'Standard rate 20 %', 20, 'demo'), ('TAX_05_5', 'Reduced rate 5.5 %', 5.5, 'demo'), ('TAX_00', 'Exempt', 0, 'demo')
        on conflict (code) do nothing`,
      sql`insert into tax_class (code, description, creator) values
        ('NORMAL', 'Normal rate', 'demo'), ('REDUCED', 'Reduced rate', 'demo'), ('EXEMPT', 'Exempt', 'demo')
        on conflict (code) do nothing`,
      sql`insert into tax_mapping (code, description, tax_class_id, tax_id, creator)
        select m.code, m.description, c.id, t.id, 'demo' from (values
          ('TM_NORMAL', ${'NORMAL → 20 %'}, 'NORMAL', 'TAX_20'),
          ('TM_REDUCED', ${'REDUCED → 5.5 %'}, 'REDUCED', 'TAX_05_5'),
          ('TM_EXEMPT', ${'EXEMPT → 0 %'}, 'EXEMPT', 'TAX_00')) as m(code, description, class_code, tax_code)
        join tax_class c on c.code = m.class_code join tax t on t.code = m.tax_code
        on conflict do nothing`,
      sql`insert into invoice_category (code, description, sort_index, creator) values
        ('SUBSCRIPTION', 'Subscriptions', 1, 'demo'), ('CONSUMPTION', 'Consumption', 2, 'demo'), ('ONE_TIME', 'One-time fees', 3, 'demo')
        on conflict (code) do nothing`,
      sql`insert into invoice_sub_category (code, description, invoice_category_id, creator)
        select s.code, s.description, c.id, 'demo' from (values
          ('SUB_RECURRING', 'Recurring fees', 'SUBSCRIPTION'),
          ('SUB_USAGE', 'Usage', 'CONSUMPTION'),
          ('SUB_ONESHOT', 'Setup and one-time fees', 'ONE_TIME'),
          ('SUB_DISCOUNT', 'Discounts', 'SUBSCRIPTION')) as s(code, description, category)
        join invoice_category c on c.code = s.category on conflict (code) do nothing`,
      sql`insert into accounting_article (code, description, invoice_sub_category_id, tax_class_id, accounting_code, creator)
        select a.code, a.description, s.id, t.id, a.accounting, 'demo' from (values
          ('ART_RECURRING', 'Recurring fees', 'SUB_RECURRING', 'NORMAL', '706100'),
          ('ART_USAGE', 'Usage', 'SUB_USAGE', 'NORMAL', '706200'),
          ('ART_ONESHOT', 'One-time fees', 'SUB_ONESHOT', 'NORMAL', '706300'),
          ('ART_DISCOUNT', 'Discounts', 'SUB_DISCOUNT', 'NORMAL', '709000')) as a(code, description, sub, class, accounting)
        join invoice_sub_category s on s.code = a.sub join tax_class t on t.code = a.class on conflict (code) do nothing`,
      sql`insert into calendar (code, description, calendar_type, period_unit, period_length, reference_date, days, creator) values
        ('MONTHLY', 'Monthly, from the 1st to the next 1st', 'PERIOD', 'MONTH', 1, '2000-01-01', null, 'demo'),
        ('QUARTERLY', 'Calendar quarters', 'PERIOD', 'MONTH', 3, '2000-01-01', null, 'demo'),
        ('WEEKLY', 'Weeks starting on Monday', 'PERIOD', 'DAY', 7, '2000-01-03', null, 'demo'),
        ('YEARLY_HALVES', 'Half-years from 1 January and 1 July', 'YEARLY', null, null, null, array['01-01', '07-01'], 'demo')
        on conflict (code) do nothing`,
      sql`insert into billing_cycle (code, description, calendar_id, invoice_date_delay, creator)
        select 'CYC_MONTHLY', 'Monthly billing cycle', id, 0, 'demo' from calendar where code = 'MONTHLY' on conflict (code) do nothing`,
      sql`insert into unit_of_measure (code, description, symbol, multiplicator, creator) values
        ('UNIT', 'Unit', 'u', 1, 'demo'), ('MB', 'Megabyte', 'MB', 1, 'demo'), ('GB', 'Gigabyte', 'GB', 1024, 'demo'),
        ('MIN', 'Minute', 'min', 1, 'demo'), ('HOUR', 'Hour', 'h', 60, 'demo')
        on conflict (code) do nothing`,
      sql`update unit_of_measure set parent_unit_id = (select id from unit_of_measure where code = 'MB') where code = 'GB'`,
      sql`update unit_of_measure set parent_unit_id = (select id from unit_of_measure where code = 'MIN') where code = 'HOUR'`,
      sql`insert into custom_field_template (code, description, applies_to, field_type, storage_type, creator) values
        ('CF_SEGMENT', 'Market segment', 'Customer', 'STRING', 'SINGLE', 'demo'),
        ('CF_EMPLOYEES', 'Number of employees', 'Customer', 'LONG', 'SINGLE', 'demo'),
        ('CF_CREDIT_SCORE', 'Credit score', 'BillingAccount', 'DOUBLE', 'SINGLE', 'demo')
        on conflict (code) do nothing`,
      sql`insert into seller (code, description, trading_currency_id, country_id, language_id, address_1, address_2,
          zip_code, city, vat_no, creator)
        select 'MAIN', 'Obol Demo Seller', c.id, co.id, l.id, '12 rue de la Monnaie', ${'Bâtiment A'}, '75001', 'Paris',
          'FR40123456789', 'demo'
        from trading_currency c, country co, language l where c.code = 'EUR' and co.code = 'FR' and l.code = 'ENG'`,
    ]
    for (const statement of statements) await tx.execute(statement)

    const segments = ['SMB', 'ENTERPRISE', 'PUBLIC']
    const countries = ['FR', 'DE', 'US', 'GB']
    for (let i = 1; i <= 50; i++) {
      const n = String(i).padStart(3, '0')
      const name = `${FIRST[i % 10]!} ${LAST[Math.floor(i / 5) % 10]!}`
      const segment = segments[i % 3]!
      const country = countries[i % 4]!
      const cf = JSON.stringify({ CF_SEGMENT: [{ value: segment }], CF_EMPLOYEES: [{ value: i * 10 }] })
      const address = ADDRESSES[country]!
      // Businesses (the SMB and ENTERPRISE segments) have a VAT number; public bodies here do not.
      const vatNo = segment === 'PUBLIC' ? null : vatNumber(country, i)
      await tx.execute(sql`
        with c as (
          insert into customer (code, description, name, email, seller_id, title_id, vat_no, cf_values, creator)
          select ${`CUST_${n}`}, ${`Demo customer ${n}`}, ${name}, ${`customer${n}@example.com`}, s.id, t.id, ${vatNo},
            ${cf}::jsonb, 'demo'
          from seller s, title t where s.code = 'MAIN' and t.code = ${TITLES[i % 10]!} returning id
        ), ca as (
          insert into customer_account (code, description, name, customer_id, trading_currency_id, language_id, creator)
          select ${`CA_${n}`}, ${`Customer account ${n}`}, ${name}, c.id, cur.id, l.id, 'demo'
          from c, trading_currency cur, language l where cur.code = 'EUR' and l.code = 'ENG' returning id
        ), ba as (
          insert into billing_account (code, description, name, email, customer_account_id, billing_cycle_id, country_id,
            language_id, trading_currency_id, address_1, address_2, zip_code, city, cf_values, creator)
          select ${`BA_${n}`}, ${`Billing account ${n}`}, ${name}, ${`billing${n}@example.com`}, ca.id, cyc.id, co.id, l.id,
            cur.id, ${address.line1(i)}, ${address.line2}, ${address.zip}, ${address.city},
            ${JSON.stringify({ CF_CREDIT_SCORE: [{ value: 500 + i * 7.5 }] })}::jsonb, 'demo'
          from ca, billing_cycle cyc, country co, language l, trading_currency cur
          where cyc.code = 'CYC_MONTHLY' and co.code = ${country} and l.code = 'ENG' and cur.code = 'EUR' returning id
        )
        insert into user_account (code, description, name, billing_account_id, creator)
        select ${`UA_${n}`}, ${`User account ${n}`}, ${name}, ba.id, 'demo' from ba`)
    }
    return { created: true }
  })
}
