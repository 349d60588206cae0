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

/** A memory view of `sizeMb` whose first 256 bytes are distinctive (0, 1, 2, …, shifted by `seed`). */
function viewOf(sizeMb: number, seed = 0): Uint8Array {
  const view = new Uint8Array(new ArrayBuffer(sizeMb * MB))
  for (let i = 0; i < 256; i++) view[i] = (i + seed) % 256
  return view
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
    expect(webAssemblyMemoryResident(viewOf(128), smaps)).toBe(26_000 * 1024)
  })

  it('is undefined without such a mapping: another size, a file, a gap before the guard, or no map at all', () => {
    const view = viewOf(128)
    const guard = (at: number) => mapping(at, 8064, '---p', 0)
    expect(webAssemblyMemoryResident(view, [mapping(base, 64, 'rw-p', 5), guard(base + 64 * MB)].join('\n'))).toBe(
      undefined,
    )
    expect(
      webAssemblyMemoryResident(view, [mapping(base, 128, 'rw-p', 5, '/tmp/f'), guard(base + 128 * MB)].join('\n')),
    ).toBeUndefined()
    expect(
      webAssemblyMemoryResident(view, [mapping(base, 128, 'rw-p', 5), guard(base + 129 * MB)].join('\n')),
    ).toBeUndefined()
    expect(webAssemblyMemoryResident(view, '')).toBeUndefined()
  })

  it('tells two memories of the same size apart by their bytes, and gives up when it cannot', () => {
    const view = viewOf(128, 7)
    const smaps = [
      mapping(base, 128, 'rw-p', 900), // another module's memory, first in the map
      mapping(base + 128 * MB, 8064, '---p', 0),
      mapping(base + 9000 * MB, 128, 'rw-p', 21_000),
      mapping(base + 9128 * MB, 8064, '---p', 0),
    ].join('\n')
    const own = BigInt(base + 9000 * MB)
    // This memory's bytes are at its own mapping only; elsewhere, another module's.
    const bytesAt = (address: bigint, length: number) =>
      address === own ? view.slice(0, length) : viewOf(128, 99).slice(0, length)
    expect(webAssemblyMemoryResident(view, smaps, bytesAt)).toBe(21_000 * 1024)
    // Both mappings holding the same bytes, or none readable: no figure rather than a wrong one.
    expect(webAssemblyMemoryResident(view, smaps, (_a, length) => view.slice(0, length))).toBeUndefined()
    expect(webAssemblyMemoryResident(view, smaps, () => undefined)).toBeUndefined()
  })

  it('tells apart two instances of one module, whose static data is the same, by the data each wrote', () => {
    const mine = viewOf(128, 7)
    const other = viewOf(128, 7)
    for (let i = 0; i < 256; i++) {
      mine[5 * MB + i] = (i * 3) % 256
      other[5 * MB + i] = (i * 5) % 256
    }
    const smaps = [
      mapping(base, 128, 'rw-p', 900),
      mapping(base + 128 * MB, 8064, '---p', 0),
      mapping(base + 9000 * MB, 128, 'rw-p', 21_000),
      mapping(base + 9128 * MB, 8064, '---p', 0),
    ].join('\n')
    const own = BigInt(base + 9000 * MB)
    const bytesAt = (address: bigint, length: number) => {
      const offset = Number(address - (address >= own ? own : BigInt(base)))
      return (address >= own ? mine : other).slice(offset, offset + length)
    }
    expect(webAssemblyMemoryResident(mine, smaps, bytesAt)).toBe(21_000 * 1024)
  })

  it('finds each of two real WebAssembly memories of one size, and counts the pages written to it', () => {
    // 125 MB: a size no other memory of the test process (PGlite's are 128 MB or more) has.
    const first = new Uint8Array(new wasm.Memory({ initial: 2000 }).buffer)
    const second = new Uint8Array(new wasm.Memory({ initial: 2000 }).buffer)
    for (let i = 0; i < 256; i++) {
      first[i] = i
      second[i] = 255 - i
    }
    const before = [webAssemblyMemoryResident(first)!, webAssemblyMemoryResident(second)!]
    second.fill(1, 4096, 4096 + 16 * MB)
    const after = [webAssemblyMemoryResident(first)!, webAssemblyMemoryResident(second)!]
    expect(after[1]! - before[1]!).toBeGreaterThanOrEqual(16 * MB)
    expect(after[0]! - before[0]!).toBeLessThan(MB)
    expect(after[1]).toBeLessThan(40 * MB)
  })
})
