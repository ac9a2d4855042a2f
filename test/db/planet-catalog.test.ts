/**
 * The planet catalog the migrations ship (sql/0020_planet_catalog.sql) is the shipped
 * files' planet table: a pinned table updated without its migration fails here.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { lookups } from '../../src/lookups.ts'
import { openEmbeddedTestDatabase, type TestDatabase } from '../support/db.ts'
import { loadSample } from '../support/samples.ts'

let db: TestDatabase
beforeAll(async () => {
  db = await openEmbeddedTestDatabase()
}, 60_000)
afterAll(async () => {
  await db?.dispose()
})

test('every planet of the shipped planet table, with the real 2024 war info\'s health, position, owner and supply lines', async () => {
  const info = loadSample('arrowhead/warinfo_801_2024-03-25_sector-hq.json') as {
    planetInfos: { index: number; maxHealth: number; position: { x: number; y: number }; initialOwner: number; waypoints: number[] }[]
  }
  const byIndex = new Map(info.planetInfos.map((p) => [p.index, p]))
  const rows = await db.sql<{ planet_index: number; max_health: string | null }[]>`SELECT * FROM planet_catalog ORDER BY planet_index`
  const { planets } = lookups()
  expect(rows.map((r) => r.planet_index)).toEqual([...planets.keys()].sort((a, b) => a - b))
  for (const r of rows) {
    const index = r.planet_index
    const named = planets.get(index)!
    const w = byIndex.get(index)
    expect({ ...r, max_health: r.max_health === null ? null : Number(r.max_health) } as Record<string, unknown>).toEqual({
      planet_index: index, name: named.name, sector_name: named.sector, biome: named.biome,
      max_health: w?.maxHealth ?? null, position_x: w?.position.x ?? null, position_y: w?.position.y ?? null, initial_owner: w?.initialOwner ?? null, waypoints: w?.waypoints ?? [],
    })
  }
})
