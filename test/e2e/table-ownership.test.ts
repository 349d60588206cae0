import path from 'node:path'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'
import obol from '../../scripts/lint/obol-plugin.mjs'

// The rule `npm run lint` holds (eslint.config.mjs, rule obol/table-ownership): a module's code names only its own
// tables and the kernel's shared ones; another module's data comes through that module's index.ts.
const ROOT = path.resolve(import.meta.dirname, '../..')

function linter() {
  return new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { obol },
        rules: { 'obol/table-ownership': 'error' },
      },
    ],
  })
}

async function problemsOf(file: string, text: string): Promise<string[]> {
  const [result] = await linter().lintText(text, { filePath: path.join(ROOT, file) })
  return result!.messages.map((m) => m.message)
}

describe('table ownership', () => {
  it("refuses a module's SQL naming another module's table, and names the owner", async () => {
    const text =
      "import { sql } from 'drizzle-orm'\nexport const q = sql`select s.code from seller s join webhook_endpoint e on true`\n"
    expect(await problemsOf('src/modules/webhooks/probe.ts', text)).toEqual([
      "table seller belongs to module 'accounts': reach it through src/modules/accounts/index.ts",
    ])
  })

  it("refuses another module's table imported from the schema", async () => {
    const text =
      "import { sellers, userGroups } from '../../kernel/db/schema/index.ts'\nexport const t = [sellers, userGroups]\n"
    expect(await problemsOf('src/modules/iam/probe.ts', text)).toEqual([
      "table seller belongs to module 'accounts': reach it through src/modules/accounts/index.ts",
    ])
  })

  it('refuses writes into another module’s table as well as reads', async () => {
    const text = "export const q = 'update discount_plan set used_quantity = used_quantity + 1'\n"
    expect(await problemsOf('src/modules/catalog/probe.ts', text)).toEqual([
      "table discount_plan belongs to module 'discounts': reach it through src/modules/discounts/index.ts",
    ])
  })

  it("lets a module use its own tables, the kernel's shared ones, and the query layer read every table", async () => {
    const own = "export const q = 'select code from seller join customer on true'\n"
    expect(await problemsOf('src/modules/accounts/probe.ts', own)).toEqual([])
    const shared = "export const q = 'select rate from tax join attribute on true join tenant_setting on true'\n"
    expect(await problemsOf('src/modules/ordering/probe.ts', shared)).toEqual([])
    const everything = "export const q = 'select 1 from invoice join seller on true join wallet_operation on true'\n"
    expect(await problemsOf('src/modules/query/probe.ts', everything)).toEqual([])
  })

  it('holds over the sources as they stand', async () => {
    const results = await linter().lintFiles(['src/**/*.ts'])
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line}: ${m.message}`),
    )
    expect(problems).toEqual([])
  })
})
