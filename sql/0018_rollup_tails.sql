-- The live tail of each rollup view (0004_rollups.sql, 0007_war_summary_1d.sql) through one
-- PL/pgSQL function, same rows. The views called <name>_compute(<the watermark as a
-- sub-select>, 'infinity'): a SQL function called with a sub-select is not inlined, and
-- PostgreSQL plans its body again at every call without knowing the time, so over every
-- chunk of the hypertable, at every read of a view. Here the watermark is read first and
-- the compute function is run with it as a value: planned for that time (only the chunks
-- from it on), inlined.
CREATE FUNCTION rollup_tail(p_name text, p_row anyelement) RETURNS SETOF anyelement
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT * FROM %I($1, ''infinity'')', p_name || '_compute')
    USING (SELECT watermark FROM rollup_watermarks WHERE rollup_name = p_name);
END
$$;

CREATE OR REPLACE VIEW player_count_5m AS
  SELECT * FROM player_count_5m_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_5m')
  UNION ALL
  SELECT * FROM rollup_tail('player_count_5m', NULL::player_count_5m_store);

CREATE OR REPLACE VIEW player_count_1h AS
  SELECT * FROM player_count_1h_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1h')
  UNION ALL
  SELECT * FROM rollup_tail('player_count_1h', NULL::player_count_1h_store);

CREATE OR REPLACE VIEW player_count_1d AS
  SELECT * FROM player_count_1d_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'player_count_1d')
  UNION ALL
  SELECT * FROM rollup_tail('player_count_1d', NULL::player_count_1d_store);

CREATE OR REPLACE VIEW planet_status_1h AS
  SELECT * FROM planet_status_1h_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'planet_status_1h')
  UNION ALL
  SELECT * FROM rollup_tail('planet_status_1h', NULL::planet_status_1h_store);

CREATE OR REPLACE VIEW war_summary_1d AS
  SELECT * FROM war_summary_1d_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'war_summary_1d')
  UNION ALL
  SELECT * FROM rollup_tail('war_summary_1d', NULL::war_summary_1d_store);
