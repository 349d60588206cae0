import { describe, expect, it } from 'vitest'
import { createCatalogCache } from './catalog-cache.ts'

/** A loader answering `<key>@<generation>` for every key but 'absent', recording the keys it was asked. */
function loader(tag: string) {
  const asked: string[][] = []
  const load = async (keys: readonly string[]) => {
    asked.push([...keys])
    return new Map(keys.filter((k) => k !== 'absent').map((k) => [k, `${k}@${tag}`]))
  }
  return { asked, load }
}

describe('catalog cache', () => {
  it('loads only the missing keys of a generation and keeps what was found', async () => {
    const cache = createCatalogCache()
    const first = loader('1')
    expect([...(await cache.readsAt(1n).many('offer', ['A', 'B', 'absent'], first.load))]).toEqual([
      ['A', 'A@1'],
      ['B', 'B@1'],
    ])
    expect([...(await cache.readsAt(1n).many('offer', ['B', 'C', 'B', 'absent'], first.load))]).toEqual([
      ['B', 'B@1'],
      ['C', 'C@1'],
    ])
    expect(first.asked).toEqual([
      ['A', 'B', 'absent'],
      ['C', 'absent'],
    ])
    expect(cache.size()).toBe(3)
  })

  it('keeps kinds apart', async () => {
    const cache = createCatalogCache()
    await cache.readsAt(1n).many('offer', ['A'], loader('offer').load)
    expect((await cache.readsAt(1n).many('product', ['A'], loader('product').load)).get('A')).toBe('A@product')
  })

  it('drops everything when a newer generation is read, and lets a request of an older one neither read nor fill', async () => {
    const cache = createCatalogCache()
    const older = cache.readsAt(1n)
    await older.many('offer', ['A'], loader('1').load)
    const newer = cache.readsAt(2n)
    expect(cache.size()).toBe(0)
    expect((await newer.many('offer', ['A'], loader('2').load)).get('A')).toBe('A@2')
    const late = loader('1-late')
    expect((await older.many('offer', ['A', 'B'], late.load)).get('A')).toBe('A@1-late')
    expect(late.asked).toEqual([['A', 'B']])
    expect(cache.size()).toBe(1)
    expect((await cache.readsAt(2n).many('offer', ['A'], loader('x').load)).get('A')).toBe('A@2')
  })

  it('does not keep rows loaded while a newer generation was read', async () => {
    const cache = createCatalogCache()
    const reads = cache.readsAt(1n)
    await reads.many('offer', ['A'], async (keys) => {
      cache.readsAt(2n)
      return new Map(keys.map((k) => [k, `${k}@1`]))
    })
    expect(cache.size()).toBe(0)
  })

  it('stays within its bound: a full cache is emptied and fills again', async () => {
    const cache = createCatalogCache({ maxEntries: 3 })
    const reads = cache.readsAt(1n)
    await reads.many('charge', ['1', '2', '3'], loader('1').load)
    expect(cache.size()).toBe(3)
    await reads.many('charge', ['4'], loader('1').load)
    expect(cache.size()).toBe(1)
    const again = loader('1')
    await reads.many('charge', ['1', '4'], again.load)
    expect(again.asked).toEqual([['1']])
  })
})
