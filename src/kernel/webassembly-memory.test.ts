import { describe, expect, it } from 'vitest'
import { webAssemblyMemoryResident } from './webassembly-memory.ts'

const MB = 1024 * 1024
/** Node's WebAssembly global (the project's TypeScript libraries do not declare it). */
const wasm = (
  globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } } }
).WebAssembly

/** A mapping's lines as /proc/<pid>/smaps writes them (only the fields read here, plus one more). */
function mapping(start: number, sizeMb: number, perms: string, rssKb: number, name = ''): string {
  const hex = (n: number) => n.toString(16).padStart(12, '0')
  return [
    `${hex(start)}-${hex(start + sizeMb * MB)} ${perms} 00000000 00:00 ${name ? '1234' : '0'}${name ? `   ${name}` : ''}`,
    `Size:           ${sizeMb * 1024} kB`,
    `Rss:            ${rssKb} kB`,
    `Pss:            ${rssKb} kB`,
  ].join('\n')
}

describe(webAssemblyMemoryResident.name, () => {
  const base = 0x7f0000000000

  it('reads the resident part of the read-write mapping of the memory size that its guard region follows', () => {
    const smaps = [
      mapping(base, 128, 'rw-p', 1000), // the right size, but no guard region after it
      mapping(base + 256 * MB, 64, 'rw-p', 10),
      mapping(base + 512 * MB, 128, 'rw-p', 26_000),
      mapping(base + 640 * MB, 8064, '---p', 0),
    ].join('\n')
    expect(webAssemblyMemoryResident(128 * MB, smaps)).toBe(26_000 * 1024)
  })

  it('is undefined without such a mapping: another size, a file, a gap before the guard, or no map at all', () => {
    expect(
      webAssemblyMemoryResident(
        128 * MB,
        [mapping(base, 64, 'rw-p', 5), mapping(base + 64 * MB, 8064, '---p', 0)].join('\n'),
      ),
    ).toBeUndefined()
    expect(
      webAssemblyMemoryResident(
        128 * MB,
        [mapping(base, 128, 'rw-p', 5, '/tmp/f'), mapping(base + 128 * MB, 8064, '---p', 0)].join('\n'),
      ),
    ).toBeUndefined()
    expect(
      webAssemblyMemoryResident(
        128 * MB,
        [mapping(base, 128, 'rw-p', 5), mapping(base + 129 * MB, 8064, '---p', 0)].join('\n'),
      ),
    ).toBeUndefined()
    expect(webAssemblyMemoryResident(128 * MB, '')).toBeUndefined()
  })

  it('finds a real WebAssembly memory of this process, and counts the pages written to it', () => {
    // 125 MB: a size no other memory of the test process (PGlite's are 128 MB or more) has.
    const memory = new wasm.Memory({ initial: 2000 })
    const before = webAssemblyMemoryResident(memory.buffer.byteLength)!
    new Uint8Array(memory.buffer).fill(1, 0, 16 * MB)
    const after = webAssemblyMemoryResident(memory.buffer.byteLength)!
    expect(after - before).toBeGreaterThanOrEqual(16 * MB)
    expect(after).toBeLessThan(40 * MB)
  })
})
