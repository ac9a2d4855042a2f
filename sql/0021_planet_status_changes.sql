-- Planet status stored as what changed (docs/architecture.md "Planet status: what changed").
--
-- A full-status tick lists every planet; most of them are as they were at the tick before.
-- A planet's row is written only when its state (owner, health, regeneration, players)
-- differs from its state at the war's tick before, or when it leaves the feed (a row with
-- a null owner: absent from that tick on) or comes back. Its state at any tick with
-- planets is its latest row at or before it; the ticks are full_status_ticks. The hours of
-- the long planet histories are kept beside, for the planet-hours in which something
-- changed: any other hour is its state carried over, for as many ticks as the hour holds.

-- The dense rows' rollup goes: the writes keep the hours now.
DO $$
BEGIN
  IF to_regclass('planet_status_1h_store') IS NOT NULL THEN
    DROP VIEW planet_status_1h;
    DROP FUNCTION planet_status_1h_compute(timestamptz, timestamptz);
    DROP TABLE planet_status_1h_store;
    DELETE FROM rollup_watermarks WHERE rollup_name = 'planet_status_1h';
  ELSE
    -- A continuous aggregate (TimescaleDB Community): its policy goes with it.
    EXECUTE 'DROP MATERIALIZED VIEW planet_status_1h';
  END IF;
END
$$;

-- Kept until the rows are converted (planet_status_convert below), then dropped.
ALTER TABLE planet_status_snapshots RENAME TO planet_status_dense;
DROP FUNCTION planet_owners_at(integer, timestamptz);

CREATE TABLE planet_status_changes (
  captured_at      timestamptz      NOT NULL,
  health           bigint,
  regen_per_second double precision,
  war_id           integer          NOT NULL,
  planet_index     integer          NOT NULL,
  players          integer,
  -- Null: the planet is not in the feed from this tick on (every other column null too).
  owner            smallint,
  PRIMARY KEY (war_id, planet_index, captured_at)
);
CREATE INDEX planet_status_changes_absent ON planet_status_changes (war_id, planet_index, captured_at) WHERE owner IS NULL;

-- Each planet's state at the war's latest tick with planets: what an in-order write
-- compares a tick with. `last_owner`: its last owner in the feed (the owner changes
-- compare with it across an absence).
CREATE TABLE planet_status_latest (
  war_id           integer          NOT NULL,
  planet_index     integer          NOT NULL,
  owner            smallint,
  health           bigint,
  regen_per_second double precision,
  players          integer,
  last_owner       smallint,
  PRIMARY KEY (war_id, planet_index)
);

-- Ticks with planets per hour and per day of a war: how many ticks an hour holds, and the
-- counts a page of a planet's rows is found by (storage/time-pages.ts), as the rollups'
-- counts are for the other series.
CREATE TABLE full_status_tick_hours (
  war_id integer     NOT NULL,
  bucket timestamptz NOT NULL,
  n      integer     NOT NULL,
  PRIMARY KEY (war_id, bucket)
);
CREATE TABLE full_status_tick_days (
  war_id integer     NOT NULL,
  bucket timestamptz NOT NULL,
  n      integer     NOT NULL,
  PRIMARY KEY (war_id, bucket)
);
CREATE VIEW planet_ticks AS SELECT war_id, captured_at FROM full_status_ticks WHERE planets_written > 0;
-- A planet's state at a tick is keyed by the tick's time: two ticks of a war with planets
-- never share one (another war time at the same capture time fails its write, as its
-- planet rows did).
CREATE UNIQUE INDEX full_status_ticks_war_capture ON full_status_ticks (war_id, captured_at) WHERE planets_written > 0;

-- Count ticks (with planets) into their hour and day.
CREATE FUNCTION full_status_tick_count_add(p_war integer, p_at timestamptz[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO full_status_tick_hours AS h (war_id, bucket, n)
  SELECT p_war, time_bucket(interval '1 hour', at), count(*) FROM unnest(p_at) AS at GROUP BY 2
  ON CONFLICT (war_id, bucket) DO UPDATE SET n = h.n + excluded.n;
  INSERT INTO full_status_tick_days AS d (war_id, bucket, n)
  SELECT p_war, time_bucket(interval '1 day', at), count(*) FROM unnest(p_at) AS at GROUP BY 2
  ON CONFLICT (war_id, bucket) DO UPDATE SET n = d.n + excluded.n;
$$;

-- The hours in which a planet's state changed, for every hour before the hour of the
-- war's latest tick: its state at the hour's last tick in the feed (its players then in
-- `players`), its players summed and its ticks in the feed counted (n 0: it was out of
-- the feed all hour), and whether it was out of the feed at the hour's last tick. Any
-- other hour carries the state over.
CREATE TABLE planet_status_hours (
  war_id           integer          NOT NULL,
  planet_index     integer          NOT NULL,
  bucket           timestamptz      NOT NULL,
  n                integer          NOT NULL,
  players_sum      bigint           NOT NULL,
  players_max      integer,
  owner            smallint,
  health           bigint,
  regen_per_second double precision,
  players          integer,
  last_at          timestamptz,
  absent_after     boolean          NOT NULL,
  PRIMARY KEY (war_id, planet_index, bucket)
);

-- The rows as they were: one per planet in the feed per tick with planets. The reference
-- every read over the changes must equal (the tests compare them), and for ad-hoc SQL; a
-- read of many ticks goes through the functions of storage/planet-status.ts instead.
CREATE VIEW planet_status_snapshots AS
SELECT t.captured_at, t.war_id, l.planet_index, s.owner, s.health, s.regen_per_second, s.players
FROM full_status_ticks t
JOIN planet_status_latest l ON l.war_id = t.war_id
CROSS JOIN LATERAL (
  SELECT c.owner, c.health, c.regen_per_second, c.players FROM planet_status_changes c
  WHERE c.war_id = t.war_id AND c.planet_index = l.planet_index AND c.captured_at <= t.captured_at
  ORDER BY c.captured_at DESC LIMIT 1) s
WHERE t.planets_written > 0 AND s.owner IS NOT NULL;

-- The planet-hours of [p_lo, p_hi) in which something changed, computed again from the
-- changes and the ticks (each tick's state: the latest change at or before it).
CREATE FUNCTION planet_status_hours_rebuild(p_war integer, p_lo timestamptz, p_hi timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM planet_status_hours WHERE war_id = p_war AND bucket >= p_lo AND bucket < p_hi;
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
    FROM (SELECT DISTINCT c.planet_index, time_bucket(interval '1 hour', c.captured_at) AS b
          FROM planet_status_changes c WHERE c.war_id = p_war AND c.captured_at >= p_lo AND c.captured_at < p_hi) ph
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

-- Each planet's owner changes between p_from and p_to, each against its owner before (its
-- last one in the feed): the changes rows read in place of the per-tick rows. A change row
-- that restates its owner (a restore after a tick written late) adds nothing.
CREATE OR REPLACE FUNCTION planet_owner_changes_rebuild(p_war integer, p_from timestamptz, p_to timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM planet_owner_changes
  WHERE (p_war IS NULL OR war_id = p_war) AND captured_at >= p_from AND captured_at <= p_to;
  INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
  SELECT x.captured_at, x.war_id, x.planet_index, x.prev, x.owner
  FROM (
    SELECT c.captured_at, c.war_id, c.planet_index, c.owner,
           coalesce(lag(c.owner) OVER w, (
             SELECT p.owner FROM planet_status_changes p
             WHERE p.war_id = c.war_id AND p.planet_index = c.planet_index AND p.captured_at < c.captured_at AND p.owner IS NOT NULL
             ORDER BY p.captured_at DESC LIMIT 1)) AS prev
    FROM planet_status_changes c
    WHERE (p_war IS NULL OR c.war_id = p_war) AND c.captured_at >= p_from AND c.captured_at <= p_to AND c.owner IS NOT NULL
    WINDOW w AS (PARTITION BY c.war_id, c.planet_index ORDER BY c.captured_at)
  ) x
  WHERE x.prev <> x.owner;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

-- The war's ticks with planets in [p_lo, p_hi): the whole hours from their counts, the
-- parts of hours at either end from the ticks themselves.
CREATE FUNCTION full_status_tick_count(p_war integer, p_lo timestamptz, p_hi timestamptz)
RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
  a timestamptz := CASE WHEN p_lo = '-infinity' THEN p_lo ELSE time_bucket(interval '1 hour', p_lo + interval '1 hour' - interval '1 microsecond') END;
  b timestamptz := CASE WHEN p_hi = 'infinity' THEN p_hi ELSE time_bucket(interval '1 hour', p_hi) END;
  n bigint;
BEGIN
  IF p_lo >= p_hi THEN
    RETURN 0;
  END IF;
  IF a >= b THEN
    SELECT count(*) INTO n FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0 AND captured_at >= p_lo AND captured_at < p_hi;
    RETURN n;
  END IF;
  SELECT coalesce(sum(h.n), 0)
       + (SELECT count(*) FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0 AND captured_at >= p_lo AND captured_at < a)
       + (SELECT count(*) FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0 AND captured_at >= b AND captured_at < p_hi)
    INTO n
  FROM full_status_tick_hours h WHERE h.war_id = p_war AND h.bucket >= a AND h.bucket < b;
  RETURN n;
END
$$;

-- When a planet is in the feed: [from_at, until_at) spans, oldest first (until_at null:
-- still in it). A span starts at its first row in the feed, or at the first such row after
-- a row out of it; it ends at the first row out of the feed after its start. (A row out of
-- the feed can follow another: a tick written late restates what the next tick had.)
CREATE FUNCTION planet_status_presence(p_war integer, p_planet integer)
RETURNS TABLE (from_at timestamptz, until_at timestamptz) LANGUAGE sql STABLE AS $$
  WITH starts AS (
    SELECT DISTINCT s.at FROM (
      SELECT (SELECT min(captured_at) FROM planet_status_changes WHERE war_id = p_war AND planet_index = p_planet AND owner IS NOT NULL) AS at
      UNION ALL
      SELECT (SELECT min(n.captured_at) FROM planet_status_changes n
              WHERE n.war_id = p_war AND n.planet_index = p_planet AND n.captured_at > a.captured_at AND n.owner IS NOT NULL)
      FROM planet_status_changes a WHERE a.war_id = p_war AND a.planet_index = p_planet AND a.owner IS NULL
    ) s WHERE s.at IS NOT NULL
  )
  SELECT s.at, (SELECT min(a.captured_at) FROM planet_status_changes a
                WHERE a.war_id = p_war AND a.planet_index = p_planet AND a.owner IS NULL AND a.captured_at > s.at)
  FROM starts s
  ORDER BY s.at
$$;

-- A planet's rows in [p_lo, p_hi): the ticks with planets while it is in the feed.
CREATE FUNCTION planet_status_count(p_war integer, p_planet integer, p_lo timestamptz, p_hi timestamptz)
RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(full_status_tick_count(p_war, greatest(p.from_at, p_lo), least(coalesce(p.until_at, 'infinity'), p_hi))), 0)::bigint
  FROM planet_status_presence(p_war, p_planet) p
  WHERE p.from_at < p_hi AND coalesce(p.until_at, 'infinity') > p_lo
$$;

-- Ticks of one war written in order, each later than every stored one (live, an import in
-- order): each planet's rows where its state differs from its state at the tick before
-- (the first against planet_status_latest), its owner changes, the latest states, the
-- ticks' hours, and the planet-hours completed by these ticks (from the hour of p_before,
-- the stored tick before them). The ticks' rows come as one array per column, each row
-- with the position (from 1) of its tick in p_at. Returns the change rows written.
CREATE FUNCTION planet_status_write(
  p_war integer, p_before timestamptz, p_at timestamptz[], p_k integer[], p_planet integer[],
  p_owner smallint[], p_health bigint[], p_regen double precision[], p_players integer[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  first_hour timestamptz;
  last_hour timestamptz;
BEGIN
  WITH r AS (
    SELECT * FROM unnest(p_k, p_planet, p_owner, p_health, p_regen, p_players)
      AS r(k, planet_index, owner, health, regen_per_second, players)
  ), ticks AS (
    -- Only ticks that list planets: a tick without any says nothing about them.
    SELECT t.at, t.k::integer FROM unnest(p_at) WITH ORDINALITY AS t(at, k) WHERE t.k IN (SELECT k FROM r)
  ), known AS (
    SELECT planet_index FROM planet_status_latest WHERE war_id = p_war
    UNION SELECT planet_index FROM r
  ), seq AS (
    SELECT 0 AS k, NULL::timestamptz AS at, l.planet_index, l.owner, l.health, l.regen_per_second, l.players, l.last_owner
    FROM planet_status_latest l WHERE l.war_id = p_war
    UNION ALL
    SELECT t.k, t.at, kn.planet_index, r.owner, r.health, r.regen_per_second, r.players, r.owner
    FROM ticks t CROSS JOIN known kn LEFT JOIN r ON r.k = t.k AND r.planet_index = kn.planet_index
  ), marked AS (
    SELECT s.*,
           (s.owner, s.health, s.regen_per_second, s.players) IS DISTINCT FROM
             (lag(s.owner) OVER w, lag(s.health) OVER w, lag(s.regen_per_second) OVER w, lag(s.players) OVER w)
             AND (s.k > 0) AS changed,
           -- The planet's last owner in the feed up to this row, and before it.
           count(s.last_owner) OVER w AS grp
    FROM seq s
    WINDOW w AS (PARTITION BY s.planet_index ORDER BY s.k)
  ), owned AS (
    SELECT m.*, first_value(m.last_owner) OVER (PARTITION BY m.planet_index, m.grp ORDER BY m.k) AS owner_so_far
    FROM marked m
  ), d AS (
    SELECT o.*, lag(o.owner_so_far) OVER (PARTITION BY o.planet_index ORDER BY o.k) AS owner_before FROM owned o
  ), changes AS (
    INSERT INTO planet_status_changes (captured_at, war_id, planet_index, owner, health, regen_per_second, players)
    SELECT d.at, p_war, d.planet_index, d.owner, d.health, d.regen_per_second, d.players FROM d WHERE d.changed
    RETURNING 1
  ), owners AS (
    INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
    SELECT d.at, p_war, d.planet_index, d.owner_before, d.owner FROM d
    WHERE d.k > 0 AND d.owner IS NOT NULL AND d.owner_before IS NOT NULL AND d.owner_before <> d.owner
    ON CONFLICT DO NOTHING
  ), latest AS (
    INSERT INTO planet_status_latest AS l (war_id, planet_index, owner, health, regen_per_second, players, last_owner)
    SELECT DISTINCT ON (d.planet_index) p_war, d.planet_index, d.owner, d.health, d.regen_per_second, d.players, d.owner_so_far
    FROM d WHERE d.k > 0 AND d.planet_index IN (SELECT planet_index FROM d WHERE d.changed)
    ORDER BY d.planet_index, d.k DESC
    ON CONFLICT (war_id, planet_index) DO UPDATE SET
      owner = excluded.owner, health = excluded.health, regen_per_second = excluded.regen_per_second,
      players = excluded.players, last_owner = excluded.last_owner
  )
  SELECT count(*) INTO n FROM changes;
  PERFORM full_status_tick_count_add(p_war, ARRAY(SELECT p_at[k] FROM (SELECT DISTINCT unnest(p_k) AS k) x));
  -- The hours these ticks completed: from the hour of the tick before them to their last one's.
  SELECT time_bucket(interval '1 hour', coalesce(p_before, min(t.at))), time_bucket(interval '1 hour', max(t.at))
    INTO first_hour, last_hour
  FROM unnest(p_at) AS t(at);
  IF first_hour < last_hour THEN
    PERFORM planet_status_hours_rebuild(p_war, first_hour, last_hour);
  END IF;
  RETURN n;
END
$$;

-- One tick written before the stored tick p_next (written late): its rows where its state
-- differs from the state at the stored tick before it; for each planet that changed, a
-- row at p_next restating the state p_next had (unless p_next has a row of its own), so
-- no later tick changes; the owner changes again from the tick to each planet's next row
-- in the feed after p_next; the tick's hour; and the completed hours it touched, again.
-- Returns the change rows written.
CREATE FUNCTION planet_status_write_late(
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

-- The per-tick rows of a database written before this migration, converted war by war and
-- day by day (each call converts one day, in a transaction of its own; progress is kept,
-- so a conversion stopped halfway goes on where it stopped), through planet_status_write
-- as if the ticks were written again in order. Returns a line of progress, or null when
-- every row is converted: then the converted rows are counted against the old ones (a
-- difference stops it) and the old table goes.
CREATE TABLE planet_status_conversion (
  war_id          integer     PRIMARY KEY,
  converted_until timestamptz NOT NULL,
  rows_converted  bigint      NOT NULL DEFAULT 0
);

CREATE FUNCTION planet_status_convert() RETURNS text LANGUAGE plpgsql AS $$
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
    ), x AS (
      SELECT array_agg(t.k ORDER BY t.k, s.planet_index) AS k, array_agg(s.planet_index ORDER BY t.k, s.planet_index) AS planet,
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

-- The conversion, a step of its own after the migrations (src/db/migrate.ts runDataSteps).
CREATE TABLE IF NOT EXISTS schema_data_steps (
  name     text        PRIMARY KEY,
  step     text        NOT NULL,
  done_at  timestamptz
);
INSERT INTO schema_data_steps (name, step) VALUES ('planet status as changes', 'planet_status_convert');
