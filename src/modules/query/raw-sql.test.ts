import { describe, expect, it } from 'vitest'
import { registry } from '../../kernel/model/index.ts'
import { sqlFragmentProblem } from './raw-sql.ts'

describe(sqlFragmentProblem.name, () => {
  it.each([
    "a.code = 'x'",
    "a.name like 'O''Brien%' and (a.id > 3 or a.id < 2)",
    "a.created > now() - interval '1 day'",
    'exists (select 1 from customer_account ca where ca.customer_id = a.id)',
    "a.description = 'drop; -- /* update'",
    '"a"."code" is not null',
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
    ['a.code = $$x$$', 'dollar-quoted'],
    ["a.code = 'open", 'not closed'],
    ['exists (select 1 from pg_catalog.pg_user)', 'pg_catalog'],
    ['exists (select 1 from information_schema.tables)', 'information_schema'],
    ['exists (select 1 from "user_credential")', 'user_credential'],
    ['exists (select 1 from obol_secrets.signing_key)', 'obol_secrets'],
    ["a.code = current_setting('role')", 'current_setting'],
    ["a.id in (select set_config('statement_timeout', '0', true)::int)", 'set_config'],
    ["query_to_xml('select 1', true, true, '') is not null", 'query_to_xml'],
    ['a.id in (with x as (delete from customer returning id) select id from x)', 'DELETE'],
    ['', 'empty'],
  ])('refuses %s', (text, problem) => {
    expect(sqlFragmentProblem(registry, text, 'condition')).toContain(problem)
  })

  it('wants a sub-select for inSqlList', () => {
    expect(sqlFragmentProblem(registry, 'select id from customer', 'select')).toBeUndefined()
    expect(sqlFragmentProblem(registry, '1, 2', 'select')).toContain('SELECT')
  })
})
