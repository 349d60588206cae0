// Builds the web UI (web/, Vite + React) into dist/ui, served by the server under /ui. bin/obol.js runs it before
// `start` when the build is missing or older than its sources, as bin/build.js does for the server; tests of the UI
// call ensureUi(). Every text file is also written compressed (.br, .gz) so the server sends it without compressing
// on each request.
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const WEB = path.join(ROOT, 'web')
export const UI_OUTPUT = path.join(ROOT, 'dist', 'ui')
const MARKER = path.join(UI_OUTPUT, 'index.html')
const COMPRESSED = /\.(js|css|html|svg|json)$/

/** @param {string} dir */
function newest(dir) {
  let time = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) time = Math.max(time, newest(file))
    else time = Math.max(time, fs.statSync(file).mtimeMs)
  }
  return time
}

/** The UI build is missing, or older than a file under web/, the lock file or this script. */
export function isUiStale() {
  if (!fs.existsSync(MARKER)) return true
  const built = fs.statSync(MARKER).mtimeMs
  const inputs = [
    newest(WEB),
    fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs,
    fs.statSync(fileURLToPath(import.meta.url)).mtimeMs,
  ]
  return inputs.some((t) => t > built)
}

/** @param {string} dir */
function compressAll(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) compressAll(file)
    else if (COMPRESSED.test(entry.name)) {
      const content = fs.readFileSync(file)
      fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(content))
      fs.writeFileSync(`${file}.gz`, zlib.gzipSync(content, { level: 9 }))
    }
  }
}

/** Builds into a directory aside, then swaps it in: a running server never serves half a build. */
export async function buildUi() {
  const { build } = await import('vite')
  const { default: react } = await import('@vitejs/plugin-react')
  const aside = path.join(ROOT, 'dist', `.ui-${process.pid}`)
  await build({
    root: WEB,
    base: '/ui/',
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    build: { outDir: aside, emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1024 },
  })
  compressAll(aside)
  const old = path.join(ROOT, 'dist', `.ui-old-${process.pid}`)
  try {
    if (fs.existsSync(UI_OUTPUT)) fs.renameSync(UI_OUTPUT, old)
    fs.renameSync(aside, UI_OUTPUT)
  } catch (error) {
    // Another process built it at the same moment: its build stands.
    if (!fs.existsSync(MARKER)) throw error
  } finally {
    fs.rmSync(old, { recursive: true, force: true })
    fs.rmSync(aside, { recursive: true, force: true })
  }
}

/** Builds the UI when stale; true when a usable build is there afterwards. */
export async function ensureUi() {
  if (isUiStale()) await buildUi()
  return fs.existsSync(MARKER)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (!process.argv.includes('--if-stale') || isUiStale()) {
    process.stderr.write('obol: building the web UI into dist/ui (web/ changed or no build yet)\n')
    await buildUi()
    process.stdout.write(`Built ${path.relative(process.cwd(), UI_OUTPUT)}\n`)
  }
}
