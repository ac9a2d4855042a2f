-- Planet status written by an in-order batch of ticks (the importer's), and the kept hours
-- found without reading every change of the war:
-- - planet_status_write_changes: the batch's change rows and the hours its own ticks
--   complete come from the writer, which compared the ticks with planet_status_latest read
--   once at the batch's start (storage/planet-status.ts insertTicks); planet_status_write
--   compares every planet of every tick in the database, where a tick changes a few. It
--   leaves what planet_status_write leaves for the same ticks.
-- - planet_status_hours_rebuild: the planet-hours that changed, and the hour rows it
--   replaces, are looked up planet by planet through the keys; a range of time alone has
--   no index, so 0021's statements read every change row and every hour row of every war
--   at each call.

-- The same rows as 0021's, found through each planet's own rows in [p_lo, p_hi).
CREATE OR REPLACE FUNCTION planet_status_hours_rebuild(p_war integer, p_lo timestamptz, p_hi timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM planet_status_hours
  WHERE war_id = p_war AND planet_index = ANY (ARRAY(SELECT planet_index FROM planet_status_latest WHERE war_id = p_war))
    AND bucket >= p_lo AND bucket < p_hi;
  INSERT INTO planet_status_hours
  SELECT p_war, e.planet_index, e.b,
         count(*) FILTER (WHERE e.owner IS NOT NULL), coalesce(sum(e.players), 0), max(e.players),
         (array_agg(e.owner ORDER BY e.captured_at DESC) FILTER (WHERE e.owner IS NOT NULL))[1],
         (array_agg(e.health ORDER BY e.captured_at DESC) FILTER (WHERE e.owner IS NOT NULL))[1],
         (array_agg(e.regen_per_second ORDER BY e.captured_at DESC) FILTER (WHERE e.owner IS NOT NULL))[1],
         (array_agg(e.players ORDER BY e.captured_at DESC) FILTER (WHERE e.owner IS NOT NULL))[1],
         max(e.captured_at) FILTER (WHERE e.owner IS NOT NULL),
         (array_agg(e.owner ORDER BY e.captured_at DESC))[1] IS NULL
  FROM (
    SELECT ph.planet_index, ph.b, t.captured_at, s.owner, s.health, s.regen_per_second, s.players
    FROM (
      -- Every planet with rows has its latest state; OFFSET 0 keeps the lookup per planet.
      SELECT DISTINCT l.planet_index, time_bucket(interval '1 hour', c.captured_at) AS b
      FROM planet_status_latest l
      CROSS JOIN LATERAL (
        SELECT c.captured_at FROM planet_status_changes c
        WHERE c.war_id = p_war AND c.planet_index = l.planet_index AND c.captured_at >= p_lo AND c.captured_at < p_hi OFFSET 0) c
      WHERE l.war_id = p_war) ph
    JOIN (SELECT f.captured_at, time_bucket(interval '1 hour', f.captured_at) AS b
          FROM full_status_ticks f WHERE f.war_id = p_war AND f.planets_written > 0 AND f.captured_at >= p_lo AND f.captured_at < p_hi) t
      ON t.b = ph.b
    CROSS JOIN LATERAL (
      SELECT c.owner, c.health, c.regen_per_second, c.players FROM planet_status_changes c
      WHERE c.war_id = p_war AND c.planet_index = ph.planet_index AND c.captured_at <= t.captured_at
      ORDER BY c.captured_at DESC LIMIT 1) s
  ) e
  GROUP BY e.planet_index, e.b
  ORDER BY e.planet_index, e.b;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

-- Ticks of one war written in order, each later than every stored one, with what the
-- writer found: p_ticks, the ticks with planets in order; their change rows as one array
-- per column (p_tick: the position of the row's tick in p_ticks; p_last_owner: the planet's
-- last owner in the feed before the row, which its owner change compares with across an
-- absence); p_hours, the planet-hours completed by these ticks after the hour of p_before
-- (the stored tick before them), as planet_status_hours_rebuild computes them. The hour of
-- p_before holds stored ticks the writer does not have: rebuilt here. Returns the change
-- rows written.
CREATE FUNCTION planet_status_write_changes(
  p_war integer, p_before timestamptz, p_ticks timestamptz[], p_tick integer[], p_planet integer[],
  p_owner smallint[], p_health bigint[], p_regen double precision[], p_players integer[], p_last_owner smallint[], p_hours jsonb)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  before_hour timestamptz := time_bucket(interval '1 hour', p_before);
BEGIN
  IF cardinality(p_ticks) = 0 THEN
    RETURN 0;
  END IF;
  WITH r AS (
    SELECT p_ticks[r.k] AS captured_at, r.* FROM unnest(p_tick, p_planet, p_owner, p_health, p_regen, p_players, p_last_owner)
      WITH ORDINALITY AS r(k, planet_index, owner, health, regen_per_second, players, last_owner, i)
  ), changes AS (
    INSERT INTO planet_status_changes (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
    SELECT captured_at, p_war, planet_index, owner, health, regen_per_second, players FROM r
    RETURNING 1
  ), owners AS (
    INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
    SELECT captured_at, p_war, planet_index, last_owner, owner FROM r WHERE owner <> last_owner
    ON CONFLICT DO NOTHING
  ), latest AS (
    -- Each planet's last row of the batch.
    INSERT INTO planet_status_latest AS l (war_id, planet_index, owner, health, regen_per_second, players, last_owner)
    SELECT DISTINCT ON (planet_index) p_war, planet_index, owner, health, regen_per_second, players, coalesce(owner, last_owner)
    FROM r ORDER BY planet_index, i DESC
    ON CONFLICT (war_id, planet_index) DO UPDATE SET
      owner = excluded.owner, health = excluded.health, regen_per_second = excluded.regen_per_second,
      players = excluded.players, last_owner = excluded.last_owner
  )
  SELECT count(*) INTO n FROM changes;
  PERFORM full_status_tick_count_add(p_war, p_ticks);
  IF before_hour < time_bucket(interval '1 hour', p_ticks[cardinality(p_ticks)]) THEN
    PERFORM planet_status_hours_rebuild(p_war, before_hour, before_hour + interval '1 hour');
  END IF;
  INSERT INTO planet_status_hours (war_id, planet_index, bucket, n, players_sum, players_max, owner, health, regen_per_second, players, last_at, absent_after)
  SELECT p_war, h.planet_index, h.bucket, h.n, h.players_sum, h.players_max, h.owner, h.health, h.regen_per_second, h.players, h.last_at, h.absent_after
  FROM jsonb_to_recordset(p_hours) AS h(
    planet_index integer, bucket timestamptz, n integer, players_sum bigint, players_max integer, owner smallint, health bigint,
    regen_per_second double precision, players integer, last_at timestamptz, absent_after boolean);
  RETURN n;
END
$$;
