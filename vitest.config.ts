import { defineConfig } from 'vitest/config'

const onPostgres = Boolean(process.env.TEST_DATABASE_URL)

/**
 * On a PostgreSQL server (TEST_DATABASE_URL) the suites that depend on the store run again; what is the embedded
 * database's alone (its bundle, its data-directory lock, the CLI processes, which start on PGlite whatever the test's
 * store) and the browser screens (the same API, tested on both stores by the HTTP suites) run once, on PGlite, except
 * the Expert screen's part only a server runs (a long statement cancelled mid-way), which runs on the server alone.
 */
const pgliteOnly = [
  'src/embedded/**',
  'test/e2e/cli-{arguments,build,demo,lifecycle,serving,stop}.test.ts',
  'test/ui/!(expert-postgres).test.ts',
]
const postgresOnly = ['test/ui/expert-postgres.test.ts']
const storeExcludes = onPostgres ? pgliteOnly : postgresOnly

/** The browser suites drive Chromium (several processes of its own) against an app: one file at a time. */
const browserSuites = ['test/ui/**/*.test.ts']

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/unique-test-names.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a browser shows after a request: 1 s (the default) is short on a loaded machine.
    expect: { poll: { timeout: 5_000 } },
    pool: 'forks',
    // Test files share their worker process (each still gets its own database and app): the sources are imported
    // once per worker instead of once per file, about a third of the suite's time. Files must not leave global
    // state behind (fake timers are restored in afterEach/afterAll; nothing mutates process.env).
    isolate: false,
    sequence: { concurrent: false },
    exclude: ['**/node_modules/**', ...storeExcludes],
    // CI asks for a machine-readable report beside the console one, to print a summary line.
    reporters: process.env.VITEST_JSON ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON ? { json: process.env.VITEST_JSON } : undefined,
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...browserSuites, ...storeExcludes],
          // Two files at a time on two cores (each file on its own database and app, the CLI's on their own processes).
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserSuites,
          exclude: ['**/node_modules/**', ...storeExcludes],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
