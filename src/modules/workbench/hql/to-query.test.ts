import { PgDialect } from 'drizzle-orm/pg-core'
import { describe, expect, it } from 'vitest'
import { registry } from '../../../kernel/model/index.ts'
import { compileList } from '../../query/index.ts'
import { parseHql } from './parser.ts'
import { toQueryAst } from './to-query.ts'

const dialect = new PgDialect()
const context = (parameters: Record<string, string> = {}) => ({
  registry,
  resolve: (name: string) => {
    const entity = registry.find(name)
    if (!entity) throw new Error('unknown')
    return { entity, restriction: undefined }
  },
  parameters,
  limit: 11,
})
const compiled = (text: string, parameters: Record<string, string> = {}) => {
  const { ast } = toQueryAst(parseHql(text), context(parameters))
  const query = dialect.sqlToQuery(compileList(registry, ast, { timeZone: 'UTC', sellerCodes: null, count: false }))
  return { sql: query.sql, params: query.params }
}

// Golden SQL of each construct of the Deep subset; the e2e suite runs the same constructs on a database.
describe('Deep HQL compiled through the shared query compiler', () => {
  it.each([
    [
      'a select list with an alias, implicit join and order',
      'select c.code as code, c.seller.code from Customer c order by c.code desc',
      `select null as "total", (select coalesce(json_agg(json_build_object($1::text, "q"."c0", $2::text, "q"."c1") order by "q"."__s1" desc), '[]'::json)::text from (select "a"."code" as "c0", "j1"."code" as "c1", "a"."code" as "__s1" from "customer" "a" inner join "seller" "j1" on "j1"."id" = "a"."seller_id" where true order by "a"."code" desc limit $3 offset $4) "q") as "data"`,
      ['code', 'c.seller.code', 11, 0],
    ],
    [
      'an explicit outer join through a collection, a parameter typed by its field',
      'select ca.code from Customer c left join c.customerAccounts ca where c.id = :id',
      `select null as "total", (select coalesce(json_agg(json_build_object($1::text, "q"."c0")), '[]'::json)::text from (select "h1"."code" as "c0" from "customer" "a" left join "customer_account" "h1" on "h1"."customer_id" = "a"."id" where "a"."id" = $2::bigint limit $3 offset $4) "q") as "data"`,
      ['ca.code', '7', 11, 0],
    ],
    [
      'aggregates with group by and having',
      'select c.seller.code, count(distinct c.id) as n from Customer c group by c.seller.code having count(*) > 1',
      `select null as "total", (select coalesce(json_agg(json_build_object($1::text, "q"."c0", $2::text, "q"."c1")), '[]'::json)::text from (select "j1"."code" as "c0", count(distinct "a"."id") as "c1" from "customer" "a" inner join "seller" "j1" on "j1"."id" = "a"."seller_id" where true group by "j1"."code" having count(*) > $3::bigint limit $4 offset $5) "q") as "data"`,
      ['c.seller.code', 'n', '1', 11, 0],
    ],
    [
      'functions, like, in, between and null tests',
      "select upper(c.code) from Customer c where lower(c.name) like 'a%' and c.code in ('X', 'Y') and c.id between 1 and 5 and c.email is not null and year(c.created) = 2026",
      `select null as "total", (select coalesce(json_agg(json_build_object($1::text, "q"."c0")), '[]'::json)::text from (select upper("a"."code"::text) as "c0" from "customer" "a" where (lower("a"."name"::text)::text like $2::text::text and "a"."code" in ($3::text, $4::text) and "a"."id" >= $5::bigint and "a"."id" <= $6::bigint and not ("a"."email" is null) and extract(year from ("a"."created" at time zone $7))::integer = $8::integer) limit $9 offset $10) "q") as "data"`,
      ['upper(c.code)', 'a%', 'X', 'Y', '1', '5', 'UTC', '2026', 11, 0],
    ],
  ])('%s', (_name, text, sql, params) => {
    const found = compiled(text, { id: '7' })
    expect(found.sql).toBe(sql)
    expect(found.params).toEqual(params)
  })
})
