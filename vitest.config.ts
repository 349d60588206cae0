import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
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
    // CI asks for a machine-readable report beside the console one, to print a summary line.
    reporters: process.env.VITEST_JSON ? ['default', 'json'] : ['default'],
    outputFile: process.env.VITEST_JSON ? { json: process.env.VITEST_JSON } : undefined,
  },
})
