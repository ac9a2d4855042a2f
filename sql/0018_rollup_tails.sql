-- Rollups (0004_rollups.sql, 0007_war_summary_1d.sql), same rows, faster reads.
--
-- The live tail of each rollup view through one PL/pgSQL function. The views called
-- <name>_compute(<the watermark as a sub-select>, 'infinity'): a SQL function called with a
-- sub-select is not inlined, and PostgreSQL plans its body again at every call without
-- knowing the time, so over every chunk of the hypertable, at every read of a view. Here
-- the watermark is read first and the compute function is run with it as a value: planned
-- for that time (only the chunks from it on), inlined.
CREATE FUNCTION rollup_tail(p_name text, p_row anyelement) RETURNS SETOF anyelement
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT * FROM %I($1, ''infinity'')', p_name || '_compute')
    USING (SELECT watermark FROM rollup_watermarks WHERE rollup_name = p_name);
END
$$;

-- Every rollup's view, as in 0004 and 0007: its store below the watermark, then its tail.
DO $$
DECLARE
  n text;
BEGIN
  FOR n IN SELECT rollup_name FROM rollup_watermarks ORDER BY rollup_name LOOP
    EXECUTE format(
      'CREATE OR REPLACE VIEW %1$I AS
         SELECT * FROM %2$I WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = %1$L)
         UNION ALL
         SELECT * FROM rollup_tail(%1$L, NULL::%2$I)',
      n, n || '_store');
  END LOOP;
END
$$;

-- A refresh writes its buckets in the order of the store's primary key (each series, then
-- its time), so a series' buckets lie together on disk: a refresh of a long history (an
-- import, the first refresh after a backfill) wrote them in the hash aggregate's order,
-- one table page per bucket read. Same rows; the rest as in 0004.
CREATE OR REPLACE FUNCTION rollup_refresh(p_name text, p_now timestamptz DEFAULT now())
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  r       rollup_watermarks;
  new_wm  timestamptz;
  written integer;
  pk      text;
BEGIN
  SELECT * INTO r FROM rollup_watermarks WHERE rollup_name = p_name FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'unknown rollup %', p_name;
  END IF;
  new_wm := time_bucket(r.bucket_width, p_now - r.refresh_lag);
  IF new_wm <= r.watermark THEN
    RETURN 0;
  END IF;
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY k.n) INTO pk
  FROM pg_index i
  CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE i.indrelid = (p_name || '_store')::regclass AND i.indisprimary;
  EXECUTE format('DELETE FROM %I WHERE bucket >= $1 AND bucket < $2', p_name || '_store')
    USING r.watermark, new_wm;
  -- The compute function behind a fence (OFFSET 0): planned as it was, its result then sorted,
  -- rather than its aggregate turned into one over the raw rows sorted in that order.
  EXECUTE format('INSERT INTO %I SELECT * FROM (SELECT * FROM %I($1, $2) OFFSET 0) r ORDER BY %s', p_name || '_store', p_name || '_compute', pk)
    USING r.watermark, new_wm;
  GET DIAGNOSTICS written = ROW_COUNT;
  UPDATE rollup_watermarks SET watermark = new_wm, refreshed_at = p_now WHERE rollup_name = p_name;
  RETURN written;
END
$$;
