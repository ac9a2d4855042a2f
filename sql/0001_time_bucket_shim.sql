-- Plain PostgreSQL (and the embedded PGlite) have no TimescaleDB: give them the one
-- time_bucket form our queries use, over date_bin with TimescaleDB's default origin
-- (Monday 2000-01-03), so the same SQL buckets identically on every edition.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN
    CREATE OR REPLACE FUNCTION time_bucket(bucket_width interval, ts timestamptz)
      RETURNS timestamptz
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS 'SELECT date_bin(bucket_width, ts, timestamptz ''2000-01-03 00:00:00+00'')';
  END IF;
END
$$;
