import fs from 'node:fs'
import { createRequire } from 'node:module'
import { digestFileOf, NATIVE_OUTPUT, sha256Of } from '../../bin/build-native.js'

/**
 * glibc's `malloc_trim(0)`, from native/malloc-trim.c: gives the free memory malloc holds inside its arenas back to
 * the system and answers whether any was given back (false elsewhere than glibc).
 */
export type MallocTrim = () => boolean

/** The reason when there is no module at all (no C compiler when the server was started): not worth a warning. */
export const MALLOC_TRIM_NOT_BUILT = 'not built'

/**
 * The module bin/build-native.js built (`obol start` builds it when a C compiler is there), or why there is none.
 * It is opened only when its bytes have the digest the build recorded after checking it in a child process: a
 * truncated or damaged shared object can crash the process as it is opened (SIGBUS), which no try/catch stops. A
 * refused or unloadable module is built again by the next start.
 */
export function loadMallocTrim(file = NATIVE_OUTPUT): { trim: MallocTrim } | { reason: string } {
  if (!fs.existsSync(file)) return { reason: MALLOC_TRIM_NOT_BUILT }
  let recorded: string
  try {
    recorded = fs.readFileSync(digestFileOf(file), 'utf8').trim()
  } catch {
    return { reason: 'no digest of the build beside it; the next start builds it again' }
  }
  if (recorded !== sha256Of(file)) return { reason: 'not the file that was built; the next start builds it again' }
  try {
    const loaded: unknown = createRequire(import.meta.url)(file)
    const trim = (loaded as { trim?: unknown } | null)?.trim
    if (typeof trim !== 'function') return { reason: 'the module has no trim()' }
    const call = trim as () => unknown
    return { trim: () => call() === true }
  } catch (error) {
    return { reason: `does not load: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}` }
  }
}
