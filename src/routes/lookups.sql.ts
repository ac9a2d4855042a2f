/** SQL of the lookup tables: planets (every war), sectors, factions. */
import type { Sql } from '../db/connect.ts'

interface PlanetRaw {
  war_id: number
  planet_index: number
  name: string
  sector_name: string | null
  biome: string | null
  position_x: number
  position_y: number
  max_health: number
  initial_owner: number
  disabled: boolean
  waypoints: number[]
}

export async function planets(sql: Sql) {
  const rows = await sql<PlanetRaw[]>`
    SELECT war_id, planet_index, name, sector_name, biome, position_x, position_y, max_health, initial_owner, disabled, waypoints
    FROM planets
    ORDER BY war_id, planet_index`
  return rows.map((r) => ({
    warID: r.war_id,
    index: r.planet_index,
    name: r.name,
    sector: r.sector_name,
    biome: r.biome,
    position: { x: r.position_x, y: r.position_y },
    maxHealth: r.max_health,
    initialOwner: r.initial_owner,
    disabled: r.disabled,
    waypoints: r.waypoints,
  }))
}

export async function sectors(sql: Sql) {
  const rows = await sql<{ sector_name: string; planet_count: number }[]>`
    SELECT sector_name, planet_count FROM sectors ORDER BY sector_name`
  return rows.map((r) => ({ name: r.sector_name, planetCount: r.planet_count }))
}

export async function factions(sql: Sql) {
  const rows = await sql<{ faction_id: number; name: string }[]>`SELECT faction_id, name FROM factions ORDER BY faction_id`
  return rows.map((r) => ({ id: r.faction_id, name: r.name }))
}
