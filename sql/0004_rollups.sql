-- Long-range rollups for TimescaleDB Apache and plain PostgreSQL (the Community edition
-- uses continuous aggregates instead: 0004_rollups.timescale.sql). Each rollup is read
-- through ONE name, a view, on every edition:
--
--   <name>          = <name>_store (materialized buckets below the watermark)
--                     UNION ALL <name>_compute(watermark, infinity) (the live tail),
--
-- which is what TimescaleDB's real-time aggregation does, so readers see rows up to the
-- last second. The service moves the watermark forward (rollup_refresh) and every write
-- of older rows moves it back (rollup_invalidate), so the view is always exact.

CREATE TABLE rollup_watermarks (
  rollup_name  text        PRIMARY KEY,
  bucket_width interval    NOT NULL,
  -- raw table whose writes invalidate this rollup (hierarchical rollups name the raw one)
  source_table text        NOT NULL,
  -- buckets that may still receive rows stay in the live tail this long
  refresh_lag  interval    NOT NULL DEFAULT interval '2 minutes',
  refresh_order integer    NOT NULL,
  watermark    timestamptz NOT NULL DEFAULT '2000-01-03 00:00:00+00',
  refreshed_at timestamptz
);

-- Player counts (diver history): per game and source, value = the row's count.
CREATE TABLE player_count_5m_store (
  bucket    timestamptz NOT NULL,
  game_name text        NOT NULL,
  source    text        NOT NULL,
  n         bigint      NOT NULL,
  sum_v     bigint      NOT NULL,
  min_v     integer     NOT NULL,
  max_v     integer     NOT NULL,
  PRIMARY KEY (game_name, source, bucket)
);
CREATE TABLE player_count_1h_store (LIKE player_count_5m_store INCLUDING ALL);
CREATE TABLE player_count_1d_store (LIKE player_count_5m_store INCLUDING ALL);

CREATE FUNCTION player_count_5m_compute(lo timestamptz, hi timestamptz)
RETURNS TABLE (bucket timestamptz, game_name text, source text, n bigint, sum_v bigint, min_v integer, max_v integer)
LANGUAGE sql STABLE AS $$
  SELECT time_bucket(interval '5 minutes', s.captured_at), s.game_name, s.source, count(*),
         sum(coalesce(s.api_total_player_count, s.total_player_count)),
         min(coalesce(s.api_total_player_count, s.total_player_count)),
         max(coalesce(s.api_total_player_count, s.total_player_count))
  FROM player_count_snapshots s
  WHERE s.captured_at >= lo AND s.captured_at < hi
  GROUP BY 1, 2, 3
$$;

CREATE VIEW player_count_5m AS
  SELECT * FROM player_count_5m_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_5m')
  UNION ALL
  SELECT * FROM player_count_5m_compute(
    (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_5m'), 'infinity');

-- Coarser levels roll up the level below (through its view, so they are exact too).
CREATE FUNCTION player_count_1h_compute(lo timestamptz, hi timestamptz)
RETURNS TABLE (bucket timestamptz, game_name text, source text, n bigint, sum_v bigint, min_v integer, max_v integer)
LANGUAGE sql STABLE AS $$
  SELECT time_bucket(interval '1 hour', r.bucket), r.game_name, r.source,
         sum(r.n)::bigint, sum(r.sum_v)::bigint, min(r.min_v), max(r.max_v)
  FROM player_count_5m r
  WHERE r.bucket >= lo AND r.bucket < hi
  GROUP BY 1, 2, 3
$$;

CREATE VIEW player_count_1h AS
  SELECT * FROM player_count_1h_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1h')
  UNION ALL
  SELECT * FROM player_count_1h_compute(
    (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1h'), 'infinity');

CREATE FUNCTION player_count_1d_compute(lo timestamptz, hi timestamptz)
RETURNS TABLE (bucket timestamptz, game_name text, source text, n bigint, sum_v bigint, min_v integer, max_v integer)
LANGUAGE sql STABLE AS $$
  SELECT time_bucket(interval '1 day', r.bucket), r.game_name, r.source,
         sum(r.n)::bigint, sum(r.sum_v)::bigint, min(r.min_v), max(r.max_v)
  FROM player_count_1h r
  WHERE r.bucket >= lo AND r.bucket < hi
  GROUP BY 1, 2, 3
$$;

CREATE VIEW player_count_1d AS
  SELECT * FROM player_count_1d_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1d')
  UNION ALL
  SELECT * FROM player_count_1d_compute(
    (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1d'), 'infinity');

-- Planet status per hour (planet history over long windows): the state at the end of
-- the hour and the players averaged over it.
CREATE TABLE planet_status_1h_store (
  bucket           timestamptz      NOT NULL,
  war_id           integer          NOT NULL,
  planet_index     integer          NOT NULL,
  n                bigint           NOT NULL,
  players_sum      bigint           NOT NULL,
  players_max      integer          NOT NULL,
  owner            smallint         NOT NULL,
  health           bigint           NOT NULL,
  regen_per_second double precision NOT NULL,
  last_at          timestamptz      NOT NULL,
  PRIMARY KEY (war_id, planet_index, bucket)
);

CREATE FUNCTION planet_status_1h_compute(lo timestamptz, hi timestamptz)
RETURNS TABLE (bucket timestamptz, war_id integer, planet_index integer, n bigint, players_sum bigint,
               players_max integer, owner smallint, health bigint, regen_per_second double precision, last_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT time_bucket(interval '1 hour', s.captured_at), s.war_id, s.planet_index, count(*), sum(s.players)::bigint,
         max(s.players),
         (array_agg(s.owner ORDER BY s.captured_at DESC))[1],
         (array_agg(s.health ORDER BY s.captured_at DESC))[1],
         (array_agg(s.regen_per_second ORDER BY s.captured_at DESC))[1],
         max(s.captured_at)
  FROM planet_status_snapshots s
  WHERE s.captured_at >= lo AND s.captured_at < hi
  GROUP BY 1, 2, 3
$$;

CREATE VIEW planet_status_1h AS
  SELECT * FROM planet_status_1h_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'planet_status_1h')
  UNION ALL
  SELECT * FROM planet_status_1h_compute(
    (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'planet_status_1h'), 'infinity');

INSERT INTO rollup_watermarks (rollup_name, bucket_width, source_table, refresh_order) VALUES
  ('player_count_5m',  interval '5 minutes', 'player_count_snapshots',  1),
  ('player_count_1h',  interval '1 hour',    'player_count_snapshots',  2),
  ('player_count_1d',  interval '1 day',     'player_count_snapshots',  3),
  ('planet_status_1h', interval '1 hour',    'planet_status_snapshots', 1);

-- Materialize complete buckets from the watermark up to now - refresh_lag.
CREATE FUNCTION rollup_refresh(p_name text, p_now timestamptz DEFAULT now())
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  r       rollup_watermarks;
  new_wm  timestamptz;
  written integer;
BEGIN
  SELECT * INTO r FROM rollup_watermarks WHERE rollup_name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown rollup %', p_name;
  END IF;
  new_wm := time_bucket(r.bucket_width, p_now - r.refresh_lag);
  IF new_wm <= r.watermark THEN
    RETURN 0;
  END IF;
  EXECUTE format('DELETE FROM %I WHERE bucket >= $1 AND bucket < $2', p_name || '_store')
    USING r.watermark, new_wm;
  EXECUTE format('INSERT INTO %I SELECT * FROM %I($1, $2)', p_name || '_store', p_name || '_compute')
    USING r.watermark, new_wm;
  GET DIAGNOSTICS written = ROW_COUNT;
  UPDATE rollup_watermarks SET watermark = new_wm, refreshed_at = p_now WHERE rollup_name = p_name;
  RETURN written;
END
$$;

-- Rows written below a watermark (backfills, late ticks) move it back, so those buckets
-- are served live until the next refresh rewrites them.
CREATE FUNCTION rollup_invalidate(p_source text, p_from timestamptz)
RETURNS void LANGUAGE sql AS $$
  UPDATE rollup_watermarks
  SET watermark = time_bucket(bucket_width, p_from)
  WHERE source_table = p_source AND watermark > time_bucket(bucket_width, p_from)
$$;
