// Builds native/malloc-trim.c into dist/native/malloc-trim.node with the system's C compiler (`CC`, else `cc`).
// bin/obol.js runs it before `start` when the module is missing or older than its source, as it does bin/build.js for
// the server. It needs no Node headers and no node-gyp (the C file declares the few Node-API functions it calls).
// Without a compiler, or off Linux and macOS, nothing is built and the server runs without it: it then keeps the
// freed memory glibc holds after start-up (10 to 25 MB on embedded PGlite; docs/performance.md, Memory).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const NATIVE_SOURCE = path.join(ROOT, 'native', 'malloc-trim.c')
export const NATIVE_OUTPUT = path.join(ROOT, 'dist', 'native', 'malloc-trim.node')

/** The module is missing, or older than its source or this script. */
export function isNativeStale(output = NATIVE_OUTPUT) {
  if (!fs.existsSync(output)) return true
  const built = fs.statSync(output).mtimeMs
  return [NATIVE_SOURCE, fileURLToPath(import.meta.url)].some((file) => fs.statSync(file).mtimeMs > built)
}

/**
 * Compiles the module to `output`, written aside and renamed into place (two starts at once never load half a
 * file). Answers whether it was built; otherwise why, and whether it was the compiler that failed (rather than
 * missing, or a directory that cannot be written).
 * @param {string} [output]
 * @returns {{ built: true } | { built: false, reason: string, compilerFailed?: true }}
 */
export function buildNative(output = NATIVE_OUTPUT) {
  if (process.platform !== 'linux' && process.platform !== 'darwin')
    return { built: false, reason: 'not Linux or macOS' }
  try {
    // A read-only installation (an image built without a compiler) cannot hold it: not built, and no failure.
    fs.mkdirSync(path.dirname(output), { recursive: true })
  } catch (error) {
    return { built: false, reason: error instanceof Error ? error.message : String(error) }
  }
  const aside = `${output}.${process.pid}.tmp`
  // macOS links a module's undefined symbols (the Node-API functions) only when told they come from the host.
  const platformArgs = process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : []
  const compiler = process.env.CC || 'cc'
  const result = spawnSync(compiler, ['-O2', '-shared', '-fPIC', ...platformArgs, '-o', aside, NATIVE_SOURCE], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  if (result.error || result.status !== 0) {
    fs.rmSync(aside, { force: true })
    if (result.error) return { built: false, reason: `${compiler}: ${result.error.message}` }
    const reason = result.stderr.trim().split('\n')[0] || `${compiler} exited with ${result.status}`
    return { built: false, reason, compilerFailed: true }
  }
  try {
    fs.renameSync(aside, output)
  } catch (error) {
    fs.rmSync(aside, { force: true })
    return { built: false, reason: error instanceof Error ? error.message : String(error) }
  }
  return { built: true }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = isNativeStale() ? buildNative() : { built: true }
  if (!result.built) process.stderr.write(`obol: native/malloc-trim.c not built (${result.reason})\n`)
}
