// Builds native/malloc-trim.c into dist/native/ with the system's C compiler (`CC`, else `cc`). bin/obol.js runs it
// before `start` when the module is missing, older than its source, or not the file that was built, as it does
// bin/build.js for the server. It needs no Node headers and no node-gyp (the C file declares the few Node-API
// functions it calls). Without a compiler, or off Linux and macOS, nothing is built and the server runs without it:
// it then keeps the freed memory glibc holds after start-up (10 to 25 MB on embedded PGlite; docs/performance.md,
// Memory).
import { createHash } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const NATIVE_SOURCE = path.join(ROOT, 'native', 'malloc-trim.c')
/** Named by platform and architecture: a dist/ copied from another machine is not loaded, but built again. */
export const NATIVE_OUTPUT = path.join(ROOT, 'dist', 'native', `malloc-trim-${process.platform}-${process.arch}.node`)
/** How long the compiler, or the check of what it built, may take before the start goes on without the module. */
const COMPILE_TIMEOUT_MS = 60_000

/** The SHA-256 of a file's bytes, hex. */
export function sha256Of(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex')
}

/**
 * Where the build records the SHA-256 of the module it checked. The server loads the module only when its bytes
 * still have that digest: a truncated or damaged shared object can crash the process when loaded (SIGBUS), which no
 * try/catch stops, so it is refused before it is opened.
 */
export function digestFileOf(output) {
  return `${output}.sha256`
}

/**
 * The module is missing, older than its source or this script, or not the bytes that were built and checked. With
 * no source (native/ removed), there is nothing to build: not stale.
 * @param {string} [output]
 */
export function isNativeStale(output = NATIVE_OUTPUT) {
  if (!fs.existsSync(NATIVE_SOURCE)) return false
  if (!fs.existsSync(output)) return true
  const built = fs.statSync(output).mtimeMs
  if ([NATIVE_SOURCE, fileURLToPath(import.meta.url)].some((file) => fs.statSync(file).mtimeMs > built)) return true
  try {
    return fs.readFileSync(digestFileOf(output), 'utf8').trim() !== sha256Of(output)
  } catch {
    return true
  }
}

/**
 * Removes the temporary files of builds whose process has ended: a compiler killed at its time limit may leave a
 * child that writes its output later (a wrapper, or gcc's linker).
 */
function removeLeftovers(output) {
  const prefix = `${path.basename(output)}.`
  for (const name of fs.readdirSync(path.dirname(output))) {
    // `<output>.<pid>.tmp`, or the digest's `<output>.sha256.<pid>.tmp`.
    const pid =
      name.startsWith(prefix) && name.endsWith('.tmp') ? Number(name.slice(0, -'.tmp'.length).split('.').pop()) : NaN
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      process.kill(pid, 0)
    } catch (error) {
      if (error.code === 'ESRCH') fs.rmSync(path.join(path.dirname(output), name), { force: true })
    }
  }
}

/** Writes `content` to `file` whole: aside, flushed to disk, then renamed into place. */
function writeWhole(file, content) {
  const aside = `${file}.${process.pid}.tmp`
  fs.writeFileSync(aside, content, { flush: true })
  fs.renameSync(aside, file)
}

/**
 * Compiles the module to `output`, checks it in a child process (it loads, and its trim() answers a boolean), and
 * puts it in place with its digest (written aside, flushed and renamed: two starts at once never load half a file).
 * Answers whether it was built; otherwise why, and whether that is worth telling the operator (`tell`): a compiler
 * that ran and failed, hung, or built something that does not load, or a `CC` that cannot be run. A missing `cc`,
 * or a directory that cannot be written, is the expected case of an installation without a compiler: not told.
 * @param {string} [output]
 * @param {{ timeoutMs?: number }} [options]
 * @returns {{ built: true } | { built: false, reason: string, tell?: true }}
 */
export function buildNative(output = NATIVE_OUTPUT, { timeoutMs = COMPILE_TIMEOUT_MS } = {}) {
  if (process.platform !== 'linux' && process.platform !== 'darwin')
    return { built: false, reason: 'not Linux or macOS' }
  if (!fs.existsSync(NATIVE_SOURCE)) return { built: false, reason: `no ${path.relative(ROOT, NATIVE_SOURCE)}` }
  const dir = path.dirname(output)
  try {
    // A read-only installation (an image built without a compiler) cannot hold it: not built, and no failure.
    fs.mkdirSync(dir, { recursive: true })
    fs.accessSync(dir, fs.constants.W_OK)
  } catch (error) {
    return { built: false, reason: error instanceof Error ? error.message : String(error) }
  }
  removeLeftovers(output)
  // `CC` may carry arguments (`ccache gcc`, `zig cc`), as make reads it through the shell.
  const [compiler = 'cc', ...compilerArgs] = (process.env.CC ?? '').trim().split(/\s+/).filter(Boolean)
  const named = process.env.CC !== undefined && process.env.CC.trim() !== ''
  const aside = `${output}.${process.pid}.tmp`
  // macOS links a module's undefined symbols (the Node-API functions) only when told they come from the host.
  const platformArgs = process.platform === 'darwin' ? ['-undefined', 'dynamic_lookup'] : []
  const args = [...compilerArgs, '-O2', '-shared', '-fPIC', ...platformArgs, '-o', aside, NATIVE_SOURCE]
  const compiled = spawnSync(compiler, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  })
  const failed = (reason, tell) => {
    fs.rmSync(aside, { force: true })
    return tell ? { built: false, reason, tell: true } : { built: false, reason }
  }
  if (compiled.error?.code === 'ETIMEDOUT')
    return failed(`${compiler} did not finish within ${timeoutMs / 1000} s`, true)
  if (compiled.error) return failed(`${compiler}: ${compiled.error.message}`, named)
  if (compiled.status !== 0)
    return failed(compiled.stderr.trim().split('\n')[0] || `${compiler} exited with ${compiled.status}`, true)
  // Loaded in a child first: a module that crashes when loaded takes that child down, not the server.
  const check = spawnSync(
    process.execPath,
    [
      '-e',
      // process.dlopen, as require would read a file named *.tmp as JavaScript.
      `const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(aside)});` +
        `process.exit(typeof m.exports.trim() === 'boolean' ? 0 : 1)`,
    ],
    { stdio: 'ignore', timeout: timeoutMs, killSignal: 'SIGKILL' },
  )
  if (check.status !== 0) return failed(`what ${compiler} built does not load in Node`, true)
  try {
    // The compiler's writes reach the disk before the rename: a power loss leaves the old file or the whole new one.
    const fd = fs.openSync(aside, 'r+')
    fs.fsyncSync(fd)
    fs.closeSync(fd)
    const digest = sha256Of(aside)
    fs.renameSync(aside, output)
    writeWhole(digestFileOf(output), `${digest}\n`)
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error), false)
  }
  return { built: true }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = isNativeStale() ? buildNative() : { built: true }
  if (!result.built) process.stderr.write(`obol: native/malloc-trim.c not built (${result.reason})\n`)
}
