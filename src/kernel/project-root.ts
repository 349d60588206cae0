import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The project's root directory: the nearest directory above this module holding package.json. Found upward rather
 * than by a fixed number of `..`, because the same code runs from src/ (the sources) and from dist/cli.js (the
 * build, bin/build.js), at different depths.
 */
export const PROJECT_ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)))

function rootAbove(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'migrations'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no project root (package.json and migrations/) above ${start}`)
  }
}
