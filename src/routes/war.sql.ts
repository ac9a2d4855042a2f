/** SQL of /war and /war/:warId: the war record and its current planet war info. */
import type { Sql } from '../db/connect.ts'

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null)

interface WarRaw {
  war_id: number
  start_date: Date | null
  end_date: Date | null
  minimum_client_version: string | null
  first_seen_at: Date
  updated_at: Date
}

interface PlanetInfoRaw {
  planet_index: number
  war_id: number
  owner: number
  health: number
  max_health: number
  regen_per_second: number
  players: number
  name: string
  sector_name: string | null
  updated_at: Date
}

/** The war (the latest war id when `warId` is undefined) and its planets; null when no such war. */
export async function warState(sql: Sql, f: { warId?: number; planetIndex?: number }) {
  const [war] = await sql<WarRaw[]>`
    SELECT war_id, start_date, end_date, minimum_client_version, first_seen_at, updated_at
    FROM wars
    ${f.warId === undefined ? sql`` : sql`WHERE war_id = ${f.warId}`}
    ORDER BY war_id DESC
    LIMIT 1`
  if (!war) return null
  const planets = await sql<PlanetInfoRaw[]>`
    SELECT i.planet_index, i.war_id, i.owner, i.health, p.max_health, i.regen_per_second, i.players,
           p.name, p.sector_name, i.updated_at
    FROM planet_war_info i
    JOIN planets p ON p.war_id = i.war_id AND p.planet_index = i.planet_index
    WHERE i.war_id = ${war.war_id}
    ${f.planetIndex === undefined ? sql`` : sql`AND i.planet_index = ${f.planetIndex}`}
    ORDER BY i.planet_index`
  return {
    war: {
      warID: war.war_id,
      startDate: isoOrNull(war.start_date),
      endDate: isoOrNull(war.end_date),
      minimumClientVersion: war.minimum_client_version,
      firstSeenAt: war.first_seen_at.toISOString(),
      updatedAt: war.updated_at.toISOString(),
    },
    planets: planets.map((r) => ({
      indexID: r.planet_index,
      warID: r.war_id,
      owner: r.owner,
      health: r.health,
      maxHealth: r.max_health,
      regenPerSecond: r.regen_per_second,
      players: r.players,
      planetName: r.name,
      sectorName: r.sector_name,
      updatedAt: r.updated_at.toISOString(),
    })),
  }
}
