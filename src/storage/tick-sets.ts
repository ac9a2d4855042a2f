/**
 * The sets a full-status tick lists (its campaigns, attack lines, joint operations and the
 * planets' active effects), stored when they change (sql/0022): a set is one row at a tick
 * where it differs from the war's tick before; the set at any tick is its latest row at or
 * before it. Items are arrays in a fixed order (the migration's), so equal sets are equal
 * JSON.
 */
import type { Sql, Tx } from '../db/connect.ts'

export const TICK_SET_KINDS = ['campaigns', 'attacks', 'joint_operations', 'effects'] as const
export type TickSetKind = (typeof TICK_SET_KINDS)[number]

/** An item: its fields in the kind's order (campaigns: id, planet, type, count, race; ...). */
export type Item = readonly (number | null)[]

/** Items sorted as the stored sets are: by their fields, left to right. */
export function canonical(items: readonly Item[]): Item[] {
  return [...items].sort((a, b) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = (a[i] ?? -Infinity) - (b[i] ?? -Infinity)
      if (d) return d
    }
    return 0
  })
}

/**
 * The sets of ticks of one war, oldest first, in one statement (the kinds given): each
 * kind's set where it differs from its set at the tick before (the first against the
 * stored one). A tick written before a stored one (`next`, the stored tick after it; the
 * only tick then) also restates, at `next`, the set `next` had where it wrote one (unless
 * `next` has a row of its own), so no later tick changes, and takes out a row of `next`
 * that now says the same as it. A tick already stored writes nothing.
 */
export async function writeTicks(tx: Tx, warId: number, ticks: readonly { at: Date; sets: Partial<Record<TickSetKind, readonly Item[]>> }[], next: Date | null = null): Promise<void> {
  if (!ticks.length) return
  // The kinds the ticks list (every tick the same ones).
  const kinds = TICK_SET_KINDS.filter((kind) => ticks[0]!.sets[kind])
  // A set equal to the one of the tick before here is left out: the statement compares each
  // set with the one sent before it, and would write none of these.
  const sent = new Map<TickSetKind, string>()
  const rows: string[] = []
  ticks.forEach((t, k) => {
    for (const kind of kinds) {
      const items = JSON.stringify(canonical(t.sets[kind]!))
      if (sent.get(kind) === items) continue
      sent.set(kind, items)
      rows.push(`{"kind":"${kind}","k":${k},"at":"${t.at.toISOString()}","items":${items}}`)
    }
  })
  const json = `[${rows.join(',')}]`
  await tx`
    WITH t AS (
      SELECT * FROM jsonb_to_recordset(${json}::text::jsonb) AS t(kind text, k integer, at timestamptz, items jsonb)
    ), s AS (
      SELECT t.*, lag(t.items) OVER (PARTITION BY t.kind ORDER BY t.k) AS before FROM t
    ), stored AS (
      SELECT k.kind, (SELECT x.items FROM tick_sets x WHERE x.war_id = ${warId} AND x.kind = k.kind AND x.captured_at < ${ticks[0]!.at}
                      ORDER BY x.captured_at DESC LIMIT 1) AS items
      FROM unnest(${kinds}::text[]) AS k(kind)
    ), written AS (
      INSERT INTO tick_sets (war_id, kind, captured_at, items)
      SELECT ${warId}, s.kind, s.at, s.items FROM s JOIN stored USING (kind)
      WHERE s.items IS DISTINCT FROM coalesce(s.before, stored.items)
      ON CONFLICT DO NOTHING
      RETURNING kind, items
    ), same AS (
      -- A row of \`next\` that now says what this tick says: no change there any more.
      DELETE FROM tick_sets x USING written w
      WHERE ${next}::timestamptz IS NOT NULL AND x.war_id = ${warId} AND x.kind = w.kind AND x.captured_at = ${next}::timestamptz AND x.items = w.items
    )
    INSERT INTO tick_sets (war_id, kind, captured_at, items)
    SELECT ${warId}, w.kind, ${next}::timestamptz, coalesce(stored.items, '[]') FROM written w JOIN stored USING (kind)
    WHERE ${next}::timestamptz IS NOT NULL
    ON CONFLICT DO NOTHING`
}

/** The set of `kind` at tick `at` (the latest row at or before it); [] before the first. */
export async function setAt(sql: Sql, warId: number, kind: TickSetKind, at: Date): Promise<unknown[][]> {
  const [row] = await sql<{ items: unknown[][] }[]>`
    SELECT items FROM tick_sets WHERE war_id = ${warId} AND kind = ${kind} AND captured_at <= ${at} ORDER BY captured_at DESC LIMIT 1`
  return row?.items ?? []
}
