import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { PROJECT_ROOT } from './project-root.ts'

/** Where bin/build-native.js writes the module (built by `obol start` when a C compiler is there). */
export const MALLOC_TRIM_MODULE = path.join(PROJECT_ROOT, 'dist', 'native', 'malloc-trim.node')

/**
 * glibc's `malloc_trim(0)`, from native/malloc-trim.c: gives the free memory malloc holds inside its arenas back to
 * the system and answers whether any was given back (false elsewhere than glibc). Undefined when the module was not
 * built (no C compiler when the server was started) or does not load.
 */
export type MallocTrim = () => boolean

export function loadMallocTrim(file = MALLOC_TRIM_MODULE): MallocTrim | undefined {
  if (!fs.existsSync(file)) return undefined
  try {
    const loaded: unknown = createRequire(import.meta.url)(file)
    const trim = (loaded as { trim?: unknown } | null)?.trim
    if (typeof trim !== 'function') return undefined
    const call = trim as () => unknown
    return () => call() === true
  } catch {
    // Built for another platform or architecture (dist/ copied from another machine): the server runs without it.
    return undefined
  }
}
