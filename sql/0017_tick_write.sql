-- Statements every full-status tick runs, with plans kept for the session.

-- rollup_invalidate runs in every write of raw rows. As a SQL function its UPDATE was
-- planned anew at every call; PL/pgSQL keeps the plan. Same statement, same effect. (On
-- Community it stays the no-op of 0004_rollups.timescale.sql: no rollup_watermarks there.)
DO $do$
BEGIN
  IF to_regclass('rollup_watermarks') IS NOT NULL THEN
    CREATE OR REPLACE FUNCTION rollup_invalidate(p_source text, p_from timestamptz)
    RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE rollup_watermarks
      SET watermark = time_bucket(bucket_width, p_from)
      WHERE source_table = p_source AND watermark > time_bucket(bucket_width, p_from);
    END
    $fn$;
  END IF;
END
$do$;

-- The planets' owners at one status tick of a war (the tick before the one written, for
-- its owner changes). A statement that reads them itself gets a plan made for its values
-- at every run (the time picks the one chunk to read), planning the hypertable each time;
-- here the plan is generic and kept, and leaves out the other chunks when it starts.
CREATE FUNCTION planet_owners_at(p_war integer, p_at timestamptz)
RETURNS TABLE (planet_index integer, owner smallint)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY SELECT s.planet_index, s.owner FROM planet_status_snapshots s WHERE s.war_id = p_war AND s.captured_at = p_at;
END
$$;
