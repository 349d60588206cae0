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
 * `obol start` on PostgreSQL runs with V8's `--liftoff-only`: WebAssembly on baseline code only. The one WebAssembly
 * module of a server on PostgreSQL is libpg-query (the raw SQL and Expert vetting), and V8 compiling its parser to
 * optimized code after a few uses takes 230 to 550 MB for a few seconds; on baseline code it parses 1,000 statements
 * in under 0.1 s all the same. V8 reads the flag once, at process start (NODE_OPTIONS and v8.setFlagsFromString do
 * not take it), so the process replaces itself with the same command plus the flag (process.execve, Node 23.11+;
 * without it, it runs as it is). Not on embedded PGlite, WebAssembly too, whose queries run 1.4 to 2.2 times slower
 * on baseline code. OBOL_WASM_TIER_UP=1 keeps V8's default. The new process also gets glibc's mmap threshold fixed at
 * 1 MiB unless the environment sets one (as `npm start` does): scrypt's 16 MB blocks are then given back after each
 * password or secret hash instead of kept by malloc (docs/decisions.md, Memory and the built server). Like `npm
 * start`, it also gets `--expose-gc`, for the one collection of start-up garbage once the server is ready (src/main.ts,
 * collectStartGarbage), and at most two glibc arenas (MALLOC_ARENA_MAX=2) instead of one per thread that mallocs
 * (docs/performance.md, Memory, "Idle margin"). Only here, on PostgreSQL: on PGlite, V8's compiler threads optimizing
 * PostgreSQL's WebAssembly would share the main arena and leave 35–50 MB of it resident (glibc's default, an arena
 * per thread, gives theirs back: about 30 MB less at rest; docs/performance.md, Memory, "Arenas on PGlite").
 */
function baselineWasmOnPostgres() {
  const [command] = process.argv.slice(2)
  if (command !== 'start' || !process.env.DATABASE_URL || process.env.OBOL_WASM_TIER_UP === '1') return
  if (process.execArgv.includes('--liftoff-only') || typeof process.execve !== 'function') return
  const gc = process.execArgv.includes('--expose-gc') ? [] : ['--expose-gc']
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, '--liftoff-only', ...gc, ...process.argv.slice(1)],
    { MALLOC_MMAP_THRESHOLD_: '1048576', MALLOC_ARENA_MAX: '2', ...process.env },
  )
}

baselineWasmOnPostgres()

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

webUi()
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
