import fs from 'node:fs'

const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/

/**
 * How much of a WebAssembly memory of `size` bytes is resident, from the process's memory map (/proc/self/smaps):
 * V8 maps a WebAssembly memory on 64-bit Linux as an anonymous read-write mapping of exactly its size, followed
 * directly by its guard region, an anonymous mapping that is never accessible (several GB reserved). The first such
 * pair of that size is the one. Undefined where there is no such map (not Linux) or no such mapping.
 */
export function webAssemblyMemoryResident(size: number, smaps = readSmaps()): number | undefined {
  if (smaps === undefined) return undefined
  // The previous mapping, when it is a read-write anonymous mapping of the right size: the memory, if this one is
  // its guard region.
  let current: { end: bigint; rss: number } | undefined
  for (const line of smaps.split('\n')) {
    const header = HEADER.exec(line)
    if (header) {
      const [, start = '0', end = '0', perms, inode, name] = header
      const anonymous = inode === '0' && name === ''
      if (current && anonymous && perms === '---p' && BigInt(`0x${start}`) === current.end) return current.rss
      current = undefined
      if (anonymous && perms === 'rw-p' && BigInt(`0x${end}`) - BigInt(`0x${start}`) === BigInt(size))
        current = { end: BigInt(`0x${end}`), rss: 0 }
      continue
    }
    if (current && line.startsWith('Rss:')) current.rss = Number(/(\d+)/.exec(line)?.[1] ?? 0) * 1024
  }
  return undefined
}

function readSmaps(): string | undefined {
  try {
    return fs.readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return undefined
  }
}
