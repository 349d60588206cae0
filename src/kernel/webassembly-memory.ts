import fs from 'node:fs'

const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/

/** A mapping V8 may have made for a WebAssembly memory: where it starts and how much of it is resident. */
interface Candidate {
  readonly start: bigint
  readonly rss: number
}

/**
 * How much of the WebAssembly memory `memory` views is resident, from the process's memory map (/proc/self/smaps):
 * V8 maps a WebAssembly memory on 64-bit Linux as an anonymous read-write mapping of exactly its size, followed
 * directly by its guard region, an anonymous mapping that is never accessible (several GB reserved). Another
 * memory of the same size may exist (libpg-query's, loaded by the first raw SQL, is 128 MB as PGlite's is; another
 * PGlite instance): the mapping is then the one whose bytes, read through /proc/self/mem, are the memory's own. Undefined where there is no
 * such map (not Linux), no such mapping, or no way to tell two apart.
 */
export function webAssemblyMemoryResident(
  memory: Uint8Array,
  smaps = readProc('/proc/self/smaps'),
  bytesAt: (address: bigint, length: number) => Uint8Array | undefined = readMemory,
): number | undefined {
  if (smaps === undefined) return undefined
  const candidates = mappingsOfSize(smaps, memory.byteLength)
  if (candidates.length <= 1) return candidates[0]?.rss
  const samples = distinctiveSamples(memory)
  if (samples.length === 0) return undefined
  const own = candidates.filter((c) =>
    samples.every((sample) => {
      const found = bytesAt(c.start + BigInt(sample.offset), sample.bytes.length)
      return found !== undefined && Buffer.from(found).equals(Buffer.from(sample.bytes))
    }),
  )
  return own.length === 1 ? own[0]!.rss : undefined
}

/** The read-write anonymous mappings of `size` bytes that a never-accessible anonymous mapping directly follows. */
function mappingsOfSize(smaps: string, size: number): Candidate[] {
  const found: Candidate[] = []
  // The previous mapping, when it is a read-write anonymous mapping of the right size: a memory, if this one is
  // its guard region.
  let current: { start: bigint; end: bigint; rss: number } | undefined
  for (const line of smaps.split('\n')) {
    const header = HEADER.exec(line)
    if (header) {
      const [, start = '0', end = '0', perms, inode, name] = header
      const anonymous = inode === '0' && name === ''
      if (current && anonymous && perms === '---p' && BigInt(`0x${start}`) === current.end)
        found.push({ start: current.start, rss: current.rss })
      current = undefined
      if (anonymous && perms === 'rw-p' && BigInt(`0x${end}`) - BigInt(`0x${start}`) === BigInt(size))
        current = { start: BigInt(`0x${start}`), end: BigInt(`0x${end}`), rss: 0 }
      continue
    }
    if (current && line.startsWith('Rss:')) current.rss = Number(/(\d+)/.exec(line)?.[1] ?? 0) * 1024
  }
  return found
}

/**
 * Blocks of 256 bytes holding at least 32 distinct values each (not zeroes, not a fill), the first such block of
 * every MB of the memory: a module's static data in the first ones, different from one module to another, and the
 * data it has written in the others, different from one instance of the same module to another (a process may hold
 * several PGlite instances, closed ones until they are collected).
 */
function distinctiveSamples(memory: Uint8Array): { offset: number; bytes: Uint8Array }[] {
  const LENGTH = 256
  const STEP = 1024 * 1024
  const samples: { offset: number; bytes: Uint8Array }[] = []
  for (let from = 0; from < memory.byteLength; from += STEP) {
    for (let offset = from; offset + LENGTH <= Math.min(memory.byteLength, from + STEP); offset += LENGTH) {
      const bytes = memory.subarray(offset, offset + LENGTH)
      if (new Set(bytes).size >= 32) {
        samples.push({ offset, bytes: Uint8Array.from(bytes) })
        break
      }
    }
  }
  return samples
}

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Bytes of this process's own memory at an address, through /proc/self/mem. */
function readMemory(address: bigint, length: number): Uint8Array | undefined {
  let fd: number | undefined
  try {
    fd = fs.openSync('/proc/self/mem', 'r')
    const bytes = new Uint8Array(length)
    return fs.readSync(fd, bytes, 0, length, address) === length ? bytes : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
