import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openPostgres } from '../../src/kernel/db/database.ts'
import { migrate } from '../../src/kernel/db/migrate.ts'
import { QUERY_ROLE } from '../../src/kernel/db/query-role.ts'
import { pgErrorOf } from '../../src/kernel/db/database-errors.ts'
import { seedAccountsDemo } from '../../src/modules/accounts/demo-data.ts'
import { useTestApp } from '../support/test-app.ts'
import { onPostgres } from '../support/test-database.ts'

// The attacks of the penetration test on the query layer, replayed: a queryExpert holder's raw SQL fragments tried
// to read the signing key through escaped catalog names, to sleep, and to change session settings. Each must be
// refused before it runs, and whatever runs must run as a role that cannot read a secret at all.

const t = useTestApp()
const filters = (value: Record<string, unknown>) => encodeURIComponent(JSON.stringify(value))

const sqlState = async (promise: Promise<unknown>) => {
  try {
    await promise
    return undefined
  } catch (error) {
    return pgErrorOf(error)?.code
  }
}

describe('raw SQL fragments (queryExpert) are parsed by PostgreSQL’s parser and refused when they reach further', () => {
  it.each([
    [
      'the signing key through U& escapes',
      {
        SQL: 'a.id = ascii(substr((select private_jwk from U&"obol\\005fsecrets".U&"signing\\005fkey" limit 1), 1, 1))',
      },
    ],
    ['a system catalog through U& escapes', { SQL: 'exists (select 1 from U&"pg\\005fclass")' }],
    ['a system catalog by its qualified name', { SQL: 'exists (select 1 from "pg_catalog"."pg_authid")' }],
    ['information_schema', { SQL: 'exists (select 1 from information_schema.tables)' }],
    ['pg_sleep', { SQL: 'pg_sleep(12) is not null' }],
    ['pg_sleep through U& escapes', { SQL: 'U&"pg\\005fsleep"(12) is not null' }],
    ['set_config', { SQL: "set_config('statement_timeout', '0', false) is not null" }],
    ['a role switch back to the session user', { SQL: "set_config('role', 'none', false) is not null" }],
    ['the secrets schema in inSqlList', { 'inSqlList id': 'select client_id from obol_secrets.client_secret' }],
    ['a superuser check', { SQL: '(select rolsuper from pg_roles where rolname = current_user)' }],
    ['a table outside the registry', { SQL: 'exists (select 1 from obol_schema_migration)' }],
  ])('refuses %s with 400 before running it', async (_attack, filter) => {
    const res = await t.request('GET', `/api/v1/query/customer?filters=${filters(filter)}`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ errorCode: 'INVALID_FILTER' })
    expect(JSON.stringify(res.body)).not.toMatch(/private_jwk|rolsuper.*true|SQLSTATE/)
  })

  it('leaves no session setting behind (fragments cannot change settings)', async () => {
    const before = await t.request('GET', `/api/v1/query/customer/count`)
    await t.request(
      'GET',
      `/api/v1/query/customer?filters=${filters({ SQL: "set_config('search_path', 'pg_temp', false) is null" })}`,
    )
    const after = await t.request('GET', `/api/v1/query/customer/count`)
    expect(after.status).toBe(200)
    expect(after.body).toEqual(before.body)
  })
})

describe('every statement of the query layer runs as the restricted query role', () => {
  it('runs as the query role, read-only', async () => {
    const found = await t.db.current.readOnlyQuery<{ who: string }>(60_000, {
      text: 'select current_user as who',
      values: [],
    })
    expect(found[0]?.who).toBe(QUERY_ROLE)
    const write = t.db.current.readOnlyQuery(60_000, { text: "update customer set name = 'x'", values: [] })
    expect(await sqlState(write)).toBe('25006')
  })

  it('cannot read the secrets schema even when a statement names it', async () => {
    for (const table of ['signing_key', 'client_secret', 'user_credential', 'portal_session']) {
      const read = t.db.current.readOnlyQuery(60_000, { text: `select * from obol_secrets.${table}`, values: [] })
      expect(await sqlState(read), table).toBe('42501')
    }
  })

  it('cannot read tables the registry does not expose', async () => {
    const read = t.db.current.readOnlyQuery(60_000, { text: 'select * from obol_schema_migration', values: [] })
    expect(await sqlState(read)).toBe('42501')
  })

  it('still reads every entity the Query API serves', async () => {
    const entities = await t.request('GET', '/api/v1/query/entities')
    expect(entities.status).toBe(200)
    for (const name of entities.body.entities as string[]) {
      const res = await t.request('GET', `/api/v1/query/${name}?limit=1`)
      expect(res.status, name).toBe(200)
    }
  })
})

describe.runIf(onPostgres)('an application role without superuser rights (PostgreSQL server)', () => {
  it('migrates with CREATEROLE only, and its query layer reads through the query role', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await admin.connect()
    const suffix = randomBytes(4).toString('hex')
    const role = `obol_app_${suffix}`
    const name = `obol_nosuper_${suffix}`
    try {
      await admin.query(`create role ${role} login createrole`)
      await admin.query(`create database ${name} owner ${role}`)
      const url = new URL(process.env.TEST_DATABASE_URL!)
      url.username = role
      url.pathname = `/${name}`
      const database = openPostgres(url.toString(), { max: 2 })
      try {
        await migrate(database.db)
        await seedAccountsDemo(database.db)
        const who = await database.readOnlyQuery<{ who: string; n: string }>(10_000, {
          text: 'select current_user as who, (select count(*) from customer)::text as n',
          values: [],
        })
        expect(who[0]).toEqual({ who: QUERY_ROLE, n: '50' })
        expect(
          await sqlState(
            database.readOnlyQuery(10_000, { text: 'select * from obol_secrets.signing_key', values: [] }),
          ),
        ).toBe('42501')
      } finally {
        await database.close()
      }
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.query(`drop owned by ${role}`).catch(() => undefined)
      await admin.query(`drop role if exists ${role}`)
      await admin.end()
    }
  })
})
