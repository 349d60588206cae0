#!/usr/bin/env node
// The obol command. It runs the server built into dist/cli.js (bin/build.js), building it first when it is missing
// or older than the sources; without esbuild (an install without dev dependencies) or with OBOL_FROM_SOURCES=1 it runs
// the TypeScript sources through Node's type stripping (Node 22.18+, default in 24). npm scripts use the Node 24
// carried in devDependencies; older Node is told what to do.
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `obol: Node ${process.versions.node} is too old; run it through npm (npm start) or install Node 24.\n`,
  )
  process.exit(1)
}

/**
 * `obol start` runs with the settings that keep the server small (docs/performance.md, Memory). V8 and glibc read
 * them once, at process start (NODE_OPTIONS and v8.setFlagsFromString do not take `--liftoff-only`; glibc reads its
 * variables before any code runs), so when one is missing the process replaces itself with the same command plus
 * them (process.execve, Node 23.11+; without it, it runs as it is). A variable already in the environment is kept.
 * - `--expose-gc`, for the one collection of start-up garbage once the server is ready (src/main.ts,
 *   collectStartGarbage). `npm start` passes it already.
 * - On PostgreSQL, `--liftoff-only`: WebAssembly on baseline code only. The one WebAssembly module of a server on
 *   PostgreSQL is libpg-query (the raw SQL and Expert vetting), and V8 compiling its parser to optimized code after
 *   a few uses takes 230 to 550 MB for a few seconds; on baseline code it parses 1,000 statements in under 0.1 s all
 *   the same. Not on embedded PGlite, WebAssembly too, whose queries run 1.4 to 2.2 times slower on baseline code.
 *   OBOL_WASM_TIER_UP=1 keeps V8's default.
 * - glibc's mmap threshold fixed at 1 MiB (MALLOC_MMAP_THRESHOLD_), so that blocks at least that large are given
 *   back to the system when freed instead of kept by malloc: scrypt's 16 MB blocks after each password or secret
 *   hash. 32 KB, which also returns the segments V8's compilers work in, cost PGlite 6–9 % of its requests per
 *   second and gave PostgreSQL 0–13 MB less after load for a throughput from 8 % lower to 14 % higher run to run.
 * - On PostgreSQL, at most two glibc arenas (MALLOC_ARENA_MAX=2) instead of one per thread that mallocs: 3–5 MB
 *   less. Not on PGlite: V8's compiler threads optimizing PostgreSQL's WebAssembly would share the main arena and
 *   leave 35–50 MB of it resident (glibc's default, an arena per thread, gives theirs back).
 */
function startSettings() {
  const [command] = process.argv.slice(2)
  if (command !== 'start' || typeof process.execve !== 'function') return
  const onPostgres = Boolean(process.env.DATABASE_URL)
  const flags = []
  if (!process.execArgv.includes('--expose-gc')) flags.push('--expose-gc')
  if (onPostgres && process.env.OBOL_WASM_TIER_UP !== '1' && !process.execArgv.includes('--liftoff-only'))
    flags.push('--liftoff-only')
  const glibc = { MALLOC_MMAP_THRESHOLD_: '1048576', ...(onPostgres ? { MALLOC_ARENA_MAX: '2' } : {}) }
  if (flags.length === 0 && Object.keys(glibc).every((name) => process.env[name] !== undefined)) return
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)], {
    ...glibc,
    ...process.env,
  })
}

startSettings()

/** The built server when it can be had, else undefined (the sources are run). */
async function built() {
  if (process.env.OBOL_FROM_SOURCES === '1') return undefined
  const { build, isStale, OUTPUT } = await import('./build.js')
  if (isStale()) {
    try {
      await build()
    } catch (error) {
      // No esbuild (installed without dev dependencies) or a build failure: the sources still run.
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
      process.stderr.write(`obol: running from the sources (the build failed: ${reason})\n`)
      return undefined
    }
  }
  return pathToFileURL(OUTPUT).href
}

/**
 * Before `start`: builds the web UI (bin/build-ui.js) when missing or stale, in a child process so the bundler's
 * memory is not kept by the server. Without Vite (no dev dependencies) or on a failure the API still starts.
 */
function webUi() {
  const [command, ...options] = process.argv.slice(2)
  if (command !== 'start' || options.some((o) => o === '--help' || o === '-h')) return
  if (process.env.OBOL_SKIP_UI_BUILD === '1') return
  const script = fileURLToPath(new URL('./build-ui.js', import.meta.url))
  const result = spawnSync(process.execPath, [script, '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (result.status !== 0) process.stderr.write('obol: the web UI could not be built; /ui answers 503\n')
}

/**
 * Before `start`: builds native/malloc-trim.c (bin/build-native.js) when missing or stale, for the server to give
 * glibc's freed memory back after start-up. Without a C compiler the server runs all the same, without it; a
 * compiler that fails says why.
 */
async function nativeTrim() {
  const [command, ...options] = process.argv.slice(2)
  if (command !== 'start' || options.some((o) => o === '--help' || o === '-h')) return
  const { buildNative, isNativeStale } = await import('./build-native.js')
  if (!isNativeStale()) return
  const result = buildNative()
  if (!result.built && result.tell)
    process.stderr.write(`obol: native/malloc-trim.c not built (${result.reason}); starting without it\n`)
}

webUi()
await nativeTrim()
const entry = await built()
if (entry) {
  const { main } = await import(entry)
  await main(process.argv.slice(2))
} else if (!process.features.typescript) {
  // Run again with type stripping on. This process stays in front of the child: a signal sent to it (npm, a service
  // manager or kill sending SIGTERM to the pid it started) is passed on, and it exits as the child does, so stopping
  // it stops the server it started.
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, OBOL_FROM_SOURCES: '1' },
  })
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
  for (const signal of signals) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1)
    // Killed by a signal: end the same way, so whoever started this process sees it.
    for (const s of signals) process.removeAllListeners(s)
    process.kill(process.pid, signal)
  })
} else {
  const { main } = await import('../src/cli.ts')
  await main(process.argv.slice(2))
}
