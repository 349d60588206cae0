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
