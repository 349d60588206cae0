// Builds the server into dist/cli.js: Obol's TypeScript and drizzle-orm bundled into one ES module, every other
// package loaded from node_modules as usual. Loading drizzle-orm's few hundred modules one by one grew V8's heap to
// ~220 MB during start-up and never gave it back; bundled, the same code starts in about 110 MB (docs/performance.md).
// bin/obol.js runs it when it is fresher than the sources and builds it first when it is not.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const OUTPUT = path.join(ROOT, 'dist', 'cli.js')
/**
 * Worker threads the server starts from a file next to its own module (`new URL('./x.worker.ts', import.meta.url)`):
 * each is built to dist/<name>.js, where the built server finds it.
 */
const WORKERS = ['src/modules/workbench/csv-export.worker.ts']
/** Bundled into dist/cli.js; everything else stays a package loaded at run time (WASM, workers, static assets). */
const BUNDLED = new Set(['drizzle-orm'])

/** @param {string} dir @returns {number} the newest modification time of a non-test .ts file under dir */
function newestSource(dir) {
  let newest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file))
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
      newest = Math.max(newest, fs.statSync(file).mtimeMs)
  }
  return newest
}

/** The build is missing, or older than a source file, the lock file or this script. */
export function isStale() {
  if (!fs.existsSync(OUTPUT)) return true
  const built = fs.statSync(OUTPUT).mtimeMs
  const inputs = [newestSource(path.join(ROOT, 'src')), fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs]
  inputs.push(fs.statSync(fileURLToPath(import.meta.url)).mtimeMs)
  return inputs.some((t) => t > built)
}

/** Bundles src/cli.ts; written aside and renamed into place, so a concurrent start never loads half a file. */
export async function build() {
  const { build: esbuild, stop } = await import('esbuild')
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
  const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    .filter((name) => !BUNDLED.has(name))
    .flatMap((name) => [name, `${name}/*`])
  const aside = path.join(path.dirname(OUTPUT), `.build-${process.pid}`)
  try {
    await esbuild({
      // The server, and the worker threads it starts by file (they load beside it: see WORKERS).
      entryPoints: [path.join(ROOT, 'src', 'cli.ts'), ...WORKERS.map((w) => path.join(ROOT, w))],
      outdir: aside,
      entryNames: '[name]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external,
      sourcemap: 'linked',
      // Without comments and indentation, and every string outside Latin-1 escaped (esbuild's default ASCII output),
      // except in tagged templates, which are written as they are: V8 keeps the server's source in memory, 1 MB at
      // one byte a character instead of 2.7 MB at two when a comment or template held a `→` (a test checks it). Names
      // stay as written, so stack traces keep them.
      minifyWhitespace: true,
      logLevel: 'warning',
      banner: { js: '// Built by bin/build.js from src/: edit the sources, not this file.' },
    })
  } finally {
    // esbuild runs as a child process that stays for later builds: the server it built has no use for it (it held
    // 40–85 MB beside a server started by a build).
    await stop()
  }
  // Workers and maps first, the server last: a start that sees the new dist/cli.js finds everything it loads.
  const files = fs.readdirSync(aside).sort((a, b) => Number(a === 'cli.js') - Number(b === 'cli.js'))
  for (const file of files) fs.renameSync(path.join(aside, file), path.join(path.dirname(OUTPUT), file))
  fs.rmSync(aside, { recursive: true, force: true })
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await build()
  process.stdout.write(`Built ${path.relative(process.cwd(), OUTPUT)}\n`)
}
