-- The full-status write, faster at the war's real length (docs/architecture.md "Planet
-- status: what changed"), and one fix; 0021 as it was applied stays as it is:
-- - planet_status_write takes each tick's rows by their offsets (p_start) and writes the
--   ticks one after the other, one statement each against planet_status_latest, instead of
--   one statement over every tick with window functions;
-- - the ticks' hour and day counts in PL/pgSQL: a multi-statement SQL function is planned
--   again at every call;
-- - a tick written late removes a row of the stored tick after it that now says the same
--   as it (the row is no longer a change);
-- - the conversion of 0021 (if it has not finished) passes the offsets;
-- - the campaigns seen lately found by index: the event log's append after every write
--   reads them (campaign_started, campaign_ended), and a war has thousands.
DROP FUNCTION planet_status_write(integer, timestamptz, timestamptz[], integer[], integer[], smallint[], bigint[], double precision[], integer[]);

CREATE OR REPLACE FUNCTION full_status_tick_count_add(p_war integer, p_at timestamptz[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO full_status_tick_hours AS h (war_id, bucket, n)
  SELECT p_war, time_bucket(interval '1 hour', at), count(*) FROM unnest(p_at) AS at GROUP BY 2
  ON CONFLICT (war_id, bucket) DO UPDATE SET n = h.n + excluded.n;
  INSERT INTO full_status_tick_days AS d (war_id, bucket, n)
  SELECT p_war, time_bucket(interval '1 day', at), count(*) FROM unnest(p_at) AS at GROUP BY 2
  ON CONFLICT (war_id, bucket) DO UPDATE SET n = d.n + excluded.n;
END
$$;

-- Ticks of one war written in order, each later than every stored one (live, an import in
-- order), one after the other: each planet's row where its state differs from its state at
-- the tick before (planet_status_latest), its owner changes, the latest states, the ticks'
-- hours, and the planet-hours completed by these ticks (from the hour of p_before, the
-- stored tick before them). The ticks' rows come as one array per column, tick after tick;
-- tick k's rows are [p_start[k], p_start[k + 1]) (a tick without planets says nothing about
-- them). Returns the change rows written.
CREATE FUNCTION planet_status_write(
  p_war integer, p_before timestamptz, p_at timestamptz[], p_start integer[], p_planet integer[],
  p_owner smallint[], p_health bigint[], p_regen double precision[], p_players integer[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer := 0;
  m integer;
  k integer;
  a integer;
  b integer;
  listed timestamptz[] := '{}';
  first_hour timestamptz;
  last_hour timestamptz;
BEGIN
  FOR k IN 1 .. cardinality(p_at) LOOP
    a := p_start[k];
    b := p_start[k + 1] - 1;
    CONTINUE WHEN b < a;
    listed := listed || p_at[k];
    WITH r AS (
      SELECT * FROM unnest(p_planet[a:b], p_owner[a:b], p_health[a:b], p_regen[a:b], p_players[a:b])
        AS r(planet_index, owner, health, regen_per_second, players)
    ), d AS (
      SELECT coalesce(r.planet_index, l.planet_index) AS planet_index, r.owner, r.health, r.regen_per_second, r.players, l.last_owner
      FROM r FULL JOIN (SELECT * FROM planet_status_latest WHERE war_id = p_war) l ON l.planet_index = r.planet_index
      WHERE (r.owner, r.health, r.regen_per_second, r.players) IS DISTINCT FROM (l.owner, l.health, l.regen_per_second, l.players)
    ), changes AS (
      INSERT INTO planet_status_changes (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
      SELECT p_at[k], p_war, d.planet_index, d.owner, d.health, d.regen_per_second, d.players FROM d
      RETURNING 1
    ), owners AS (
      -- Against the planet's last owner in the feed, across an absence.
      INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
      SELECT p_at[k], p_war, d.planet_index, d.last_owner, d.owner FROM d WHERE d.owner <> d.last_owner
      ON CONFLICT DO NOTHING
    ), latest AS (
      INSERT INTO planet_status_latest AS l (war_id, planet_index, owner, health, regen_per_second, players, last_owner)
      SELECT p_war, d.planet_index, d.owner, d.health, d.regen_per_second, d.players, coalesce(d.owner, d.last_owner) FROM d
      ON CONFLICT (war_id, planet_index) DO UPDATE SET
        owner = excluded.owner, health = excluded.health, regen_per_second = excluded.regen_per_second,
        players = excluded.players, last_owner = excluded.last_owner
    )
    SELECT count(*) INTO m FROM changes;
    n := n + m;
  END LOOP;
  PERFORM full_status_tick_count_add(p_war, listed);
  -- The hours these ticks completed: from the hour of the tick before them to their last one's.
  SELECT time_bucket(interval '1 hour', coalesce(p_before, min(t.at))), time_bucket(interval '1 hour', max(t.at))
    INTO first_hour, last_hour
  FROM unnest(listed) AS t(at);
  IF first_hour < last_hour THEN
    PERFORM planet_status_hours_rebuild(p_war, first_hour, last_hour);
  END IF;
  RETURN n;
END
$$;

-- One tick written before the stored tick p_next (written late): its rows where its state
-- differs from the state at the stored tick before it; for each planet that changed, a
-- row at p_next restating the state p_next had (unless p_next has a row of its own), so
-- no later tick changes, and no row at p_next that now says the same as this tick; the owner changes again from the tick to each planet's next row
-- in the feed after p_next; the tick's hour; and the completed hours it touched, again.
-- Returns the change rows written.
CREATE OR REPLACE FUNCTION planet_status_write_late(
  p_war integer, p_at timestamptz, p_next timestamptz, p_planet integer[],
  p_owner smallint[], p_health bigint[], p_regen double precision[], p_players integer[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  reach timestamptz;
  open_hour timestamptz;
BEGIN
  IF cardinality(p_planet) = 0 THEN
    RETURN 0;
  END IF;
  WITH r AS (
    SELECT * FROM unnest(p_planet, p_owner, p_health, p_regen, p_players) AS r(planet_index, owner, health, regen_per_second, players)
  ), known AS (
    SELECT planet_index FROM planet_status_latest WHERE war_id = p_war
    UNION SELECT planet_index FROM r
  ), d AS (
    SELECT kn.planet_index, r.owner, r.health, r.regen_per_second, r.players,
           b.owner AS b_owner, b.health AS b_health, b.regen_per_second AS b_regen, b.players AS b_players,
           (SELECT true FROM planet_status_changes x WHERE x.war_id = p_war AND x.planet_index = kn.planet_index AND x.captured_at = p_next) AS next_has_row
    FROM known kn
    LEFT JOIN r ON r.planet_index = kn.planet_index
    LEFT JOIN LATERAL (
      SELECT c.owner, c.health, c.regen_per_second, c.players FROM planet_status_changes c
      WHERE c.war_id = p_war AND c.planet_index = kn.planet_index AND c.captured_at < p_at
      ORDER BY c.captured_at DESC LIMIT 1) b ON true
  ), changed AS (
    SELECT * FROM d
    WHERE (d.owner, d.health, d.regen_per_second, d.players) IS DISTINCT FROM (d.b_owner, d.b_health, d.b_regen, d.b_players)
  ), rows AS (
    INSERT INTO planet_status_changes (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
    SELECT p_at, p_war, planet_index, owner, health, regen_per_second, players FROM changed
    UNION ALL
    SELECT p_next, p_war, planet_index, b_owner, b_health, b_regen, b_players FROM changed WHERE next_has_row IS NULL
    RETURNING 1
  ), same AS (
    -- A row of p_next that now says what this tick says: no change there any more.
    DELETE FROM planet_status_changes x USING changed c
    WHERE x.war_id = p_war AND x.planet_index = c.planet_index AND x.captured_at = p_next
      AND (x.owner, x.health, x.regen_per_second, x.players) IS NOT DISTINCT FROM (c.owner, c.health, c.regen_per_second, c.players)
  )
  SELECT count(*) INTO n FROM rows;
  -- The planets' last owner in the feed may now be this tick's; and an owner change up to
  -- each one's next row in the feed after p_next compares with what this tick wrote.
  UPDATE planet_status_latest l SET last_owner = (
    SELECT c.owner FROM planet_status_changes c WHERE c.war_id = p_war AND c.planet_index = l.planet_index AND c.owner IS NOT NULL
    ORDER BY c.captured_at DESC LIMIT 1)
  WHERE l.war_id = p_war AND l.planet_index = ANY (p_planet);
  SELECT greatest(p_next, max(x.at)) INTO reach FROM unnest(p_planet) AS p(planet_index)
  CROSS JOIN LATERAL (SELECT min(c.captured_at) AS at FROM planet_status_changes c
                      WHERE c.war_id = p_war AND c.planet_index = p.planet_index AND c.captured_at > p_next AND c.owner IS NOT NULL) x;
  PERFORM full_status_tick_count_add(p_war, ARRAY[p_at]);
  -- A planet first seen in this tick: known from now on (out of the feed at the ticks after).
  INSERT INTO planet_status_latest (war_id, planet_index, owner, health, regen_per_second, players, last_owner)
  SELECT p_war, r.planet_index, NULL, NULL, NULL, NULL, r.owner
  FROM unnest(p_planet, p_owner) AS r(planet_index, owner)
  ON CONFLICT (war_id, planet_index) DO NOTHING;
  PERFORM planet_owner_changes_rebuild(p_war, p_at, coalesce(reach, p_next));
  -- The hours before the latest tick's hour are kept: those of the tick and of p_next, again.
  SELECT time_bucket(interval '1 hour', max(captured_at)) INTO open_hour FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0;
  IF time_bucket(interval '1 hour', p_at) < open_hour THEN
    PERFORM planet_status_hours_rebuild(p_war, time_bucket(interval '1 hour', p_at),
                                        least(open_hour, time_bucket(interval '1 hour', p_next) + interval '1 hour'));
  END IF;
  RETURN n;
END
$$;

-- 0021's conversion of the per-tick rows (see there), passing each tick's offsets.
CREATE OR REPLACE FUNCTION planet_status_convert() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  w integer;
  lo timestamptz;
  hi timestamptz;
  last timestamptz;
  stored bigint;
  rebuilt bigint;
BEGIN
  IF to_regclass('planet_status_dense') IS NULL THEN
    RETURN NULL;
  END IF;
  -- The next war with rows left, and where it stands.
  SELECT d.war_id, coalesce(c.converted_until, '-infinity') INTO w, lo
  FROM (SELECT DISTINCT war_id FROM full_status_ticks) d
  LEFT JOIN planet_status_conversion c ON c.war_id = d.war_id
  WHERE EXISTS (SELECT 1 FROM planet_status_dense s WHERE s.war_id = d.war_id AND s.captured_at > coalesce(c.converted_until, '-infinity'))
  ORDER BY d.war_id LIMIT 1;
  IF w IS NOT NULL THEN
    SELECT min(captured_at) + interval '1 day' INTO hi FROM planet_status_dense WHERE war_id = w AND captured_at > lo;
    WITH t AS (
      SELECT at, row_number() OVER (ORDER BY at)::integer AS k
      FROM (SELECT DISTINCT captured_at AS at FROM planet_status_dense WHERE war_id = w AND captured_at > lo AND captured_at < hi) x
    ), b AS (
      SELECT (SELECT array_agg(at ORDER BY k) FROM t) AS ats, (SELECT max(at) FROM t) AS last,
             (SELECT max(f.captured_at) FROM full_status_ticks f WHERE f.war_id = w AND f.captured_at <= lo AND f.planets_written > 0) AS before
    ), starts AS (
      -- Where each tick's rows start (and where the last one's end), as planet_status_write reads them.
      SELECT array_agg(z.start ORDER BY z.k) AS k FROM (
        SELECT u.k, 1 + coalesce(sum(c.n) OVER (ORDER BY u.k ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::integer AS start
        FROM (SELECT k, at FROM t UNION ALL SELECT max(k) + 1, NULL FROM t) u
        LEFT JOIN (SELECT captured_at, count(*) AS n FROM planet_status_dense
                   WHERE war_id = w AND captured_at > lo AND captured_at < hi GROUP BY 1) c ON c.captured_at = u.at) z
    ), x AS (
      SELECT (SELECT k FROM starts) AS k, array_agg(s.planet_index ORDER BY t.k, s.planet_index) AS planet,
             array_agg(s.owner ORDER BY t.k, s.planet_index) AS owner, array_agg(s.health ORDER BY t.k, s.planet_index) AS health,
             array_agg(s.regen_per_second ORDER BY t.k, s.planet_index) AS regen, array_agg(s.players ORDER BY t.k, s.planet_index) AS players
      FROM planet_status_dense s JOIN t ON t.at = s.captured_at
      WHERE s.war_id = w AND s.captured_at > lo AND s.captured_at < hi
    )
    SELECT b.last INTO last FROM b, x, LATERAL planet_status_write(w, b.before, b.ats, x.k, x.planet, x.owner, x.health, x.regen, x.players) AS written;
    INSERT INTO planet_status_conversion AS c (war_id, converted_until, rows_converted)
    SELECT w, last, count(*) FROM planet_status_dense WHERE war_id = w AND captured_at > lo AND captured_at <= last
    ON CONFLICT (war_id) DO UPDATE SET converted_until = excluded.converted_until, rows_converted = c.rows_converted + excluded.rows_converted;
    RETURN format('planet status of war %s converted up to %s', w, to_char(last AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'));
  END IF;
  -- Every row converted: the rows the changes stand for, counted against the rows kept.
  SELECT count(*) INTO stored FROM planet_status_dense;
  SELECT coalesce(sum(rows_converted), 0) INTO rebuilt FROM planet_status_conversion;
  IF stored <> rebuilt THEN
    RAISE EXCEPTION 'planet status conversion: % rows converted, % stored', rebuilt, stored;
  END IF;
  SELECT coalesce(sum(planet_status_count(l.war_id, l.planet_index, '-infinity', 'infinity')), 0) INTO rebuilt FROM planet_status_latest l;
  IF stored <> rebuilt THEN
    RAISE EXCEPTION 'planet status conversion: the changes stand for % rows, % were stored', rebuilt, stored;
  END IF;
  DROP TABLE planet_status_dense;
  RETURN NULL;
END
$$;

-- The rollups' invalidation (sql/0004), called by every write of a rolled-up table, in
-- PL/pgSQL for the same reason. Community has none to replace: its continuous aggregates
-- track their own.
DO $$
BEGIN
  IF to_regclass('rollup_watermarks') IS NOT NULL THEN
    CREATE OR REPLACE FUNCTION rollup_invalidate(p_source text, p_from timestamptz) RETURNS void LANGUAGE plpgsql AS $f$
    BEGIN
      UPDATE rollup_watermarks
      SET watermark = time_bucket(bucket_width, p_from)
      WHERE source_table = p_source AND watermark > time_bucket(bucket_width, p_from);
    END
    $f$;
  END IF;
END
$$;

CREATE INDEX campaign_spans_last_seen ON campaign_spans (war_id, last_seen_at);
