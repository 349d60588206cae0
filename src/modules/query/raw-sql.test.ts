import { beforeAll, describe, expect, it } from 'vitest'
import { registry } from '../../kernel/model/index.ts'
import { expertSqlProblem, loadSqlParser, sqlFragmentProblem, vetSqlFragment } from './raw-sql.ts'

beforeAll(async () => {
  await loadSqlParser()
})

describe(sqlFragmentProblem.name, () => {
  it.each([
    "a.code = 'x'",
    "a.name like 'O''Brien%' and (a.id > 3 or a.id < 2)",
    "a.created > now() - interval '1 day'",
    'exists (select 1 from customer_account ca where ca.customer_id = a.id)',
    "a.description = 'drop; -- /* update'",
    '"a"."code" is not null',
    "extract(year from a.created) = 2026 and lower(a.code) like 'cust%'",
    "coalesce(a.email, '') <> '' and a.id::text = '3'",
    'a.id in (select max(c.id) from customer c group by c.seller_id)',
    "upper(trim(a.code)) = 'X' and substring(a.code from 1 for 2) = 'CU'",
  ])('accepts %s', (text) => {
    expect(sqlFragmentProblem(registry, text, 'condition')).toBeUndefined()
  })

  it.each([
    ['a.id = 1; delete from customer', 'may not contain ;'],
    ['true) or (true', 'closes a parenthesis'],
    ['(true', 'leaves a parenthesis open'],
    ['true -- rest', 'comments'],
    ['true /* rest */', 'comments'],
    ["a.code = E'\\\\'", 'prefixed string literals'],
    ["a.code = U&'\\0041'", 'prefixed string literals'],
    ['a.code = $$x$$', 'may not use $'],
    ['a.code = $1', 'may not use $'],
    ["a.code = 'open", 'not closed'],
    ['exists (select 1 from pg_catalog.pg_user)', 'system catalogs not permitted'],
    ['exists (select 1 from pg_class)', 'system catalogs not permitted'],
    ['exists (select 1 from U&"pg\\005fclass")', 'system catalogs not permitted'],
    ['exists (select 1 from "PG_CLASS")', 'system catalogs not permitted'],
    ['exists (select 1 from information_schema.tables)', 'system catalogs not permitted'],
    ['exists (select 1 from "user_credential")', 'not a table the Query API exposes'],
    ['exists (select 1 from obol_secrets.signing_key)', 'schema obol_secrets'],
    ['exists (select 1 from U&"obol\\005fsecrets".U&"signing\\005fkey")', 'schema obol_secrets'],
    ['exists (select 1 from pgboss.job)', 'schema pgboss'],
    ['exists (select 1 from obol_schema_migration)', 'not a table the Query API exposes'],
    ["a.code = current_setting('role')", 'not an allowed function'],
    ["a.id in (select set_config('statement_timeout', '0', true)::int)", 'not an allowed function'],
    ['pg_sleep(12) is not null', 'system catalogs not permitted'],
    ['U&"pg\\005fsleep"(12) is not null', 'system catalogs not permitted'],
    ["query_to_xml('select 1', true, true, '') is not null", 'not an allowed function'],
    ["public.lower(a.code) = 'x'", 'not an allowed function'],
    ["a.id = 'customer'::regclass::oid::int", 'not an allowed type'],
    ['a.id in (with x as (delete from customer returning id) select id from x)', 'WITH'],
    ['a.id in (select id from (delete from customer returning id) d)', 'does not parse'],
    ['a.id in (with x as (select 1 as id) select id from x)', 'WITH'],
    ['a.id in (select id from customer for update)', 'lock rows'],
    ['exists (select 1 from generate_series(1, 100000000))', 'not an allowed function'],
    ['a.code = (select xmlelement(name x))::text', 'XmlExpr'],
    ['1) from customer where (1 = 1', 'closes a parenthesis'],
    ['(1) from customer where (1 = 1)', 'does not parse'],
    ['', 'empty'],
  ])('refuses %s', (text, problem) => {
    expect(sqlFragmentProblem(registry, text, 'condition')).toContain(problem)
  })

  it('wants a sub-select for inSqlList', () => {
    expect(sqlFragmentProblem(registry, 'select id from customer', 'select')).toBeUndefined()
    expect(sqlFragmentProblem(registry, '1, 2', 'select')).toContain('SELECT')
    expect(sqlFragmentProblem(registry, 'select id from customer) or (true', 'select')).toContain('parenthesis')
    expect(sqlFragmentProblem(registry, 'select private_jwk from obol_secrets.signing_key', 'select')).toContain(
      'obol_secrets',
    )
  })
})

describe(vetSqlFragment.name, () => {
  it.each([
    ["a.code = 'x'", []],
    ['exists (select 1 from customer_account ca where ca.customer_id = a.id)', ['CustomerAccount']],
    ['a.id in (select max(c.id) from customer c group by c.seller_id)', ['Customer']],
    [
      '(select count(*) from Query_Audit) > 0 or exists (select 1 from seller s join app_user u on true)',
      ['QueryAudit', 'Seller', 'AppUser'],
    ],
    ['exists (select 1 from (select * from public.oauth_client) x)', ['OauthClient']],
  ])('names the entities %s reads', (text, entities) => {
    expect(vetSqlFragment(registry, text, 'condition')).toEqual({ entities })
  })
})

describe(expertSqlProblem.name, () => {
  it.each([
    ['select code, created, updated from customer', { kind: 'select' }],
    ['SELECT * FROM customer LIMIT 10', { kind: 'select' }],
    ['select 1 limit 0', { kind: 'select' }],
    ['select 1 limit all', { kind: 'select' }],
    ['select 1 limit (select 3)', { kind: 'select' }],
    [
      'with recent as (select * from wallet_operation where operation_date > current_date - 30) select count(*) from recent',
      { kind: 'select' },
    ],
    ['select code, row_number() over (partition by seller_id order by code) from customer', { kind: 'select' }],
    ['select code from customer union all select code from seller', { kind: 'select' }],
    ['explain (format json) select * from customer', { kind: 'explain' }],
    ['select * from obol_secrets.client_secret', { kind: 'select' }],
    ['select \'delete; -- pg_class\' as "update"', { kind: 'select' }],
  ])('accepts %s', (text, expected) => {
    expect(expertSqlProblem(text)).toEqual(expected)
  })

  it.each([
    ['insert into seller (code) values (1)', 'must start with SELECT, WITH or EXPLAIN'],
    ['with x as (delete from seller returning *) select * from x', 'may not contain DELETE'],
    ['select * from customer for share', 'may not lock rows'],
    ['select * into t from customer', 'SELECT INTO'],
    ['select * from "pg_catalog".pg_authid', 'system catalogs not permitted'],
    ['select * from U&"pg\\005fauthid"', 'system catalogs not permitted'],
    ['select lo_export(1, 2)', 'may not call lo_export'],
    ['select 1 union select 2; select 3', 'may not contain ;'],
    ['select\u00a0* from customer', 'outside ASCII'],
    ['select (select 1 for update)', 'UPDATE'],
  ])('refuses %s', (text, message) => {
    const problem = expertSqlProblem(text)
    expect('message' in problem && problem.message).toContain(message)
  })

  it('points at the offending character', () => {
    expect(expertSqlProblem('select 1 -- no')).toEqual({ message: 'the query may not contain comments', offset: 9 })
  })
})
