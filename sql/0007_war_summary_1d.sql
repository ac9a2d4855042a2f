-- War-summary rows per war and day: exact counts that let /historical-war-summary count
-- and locate whole-history pages without count(*) and OFFSET over every row (the same
-- store + live tail as the rollups of 0004, read through one name).
CREATE TABLE war_summary_1d_store (
  bucket timestamptz NOT NULL,
  war_id integer     NOT NULL,
  n      bigint      NOT NULL,
  PRIMARY KEY (war_id, bucket)
);

CREATE FUNCTION war_summary_1d_compute(lo timestamptz, hi timestamptz)
RETURNS TABLE (bucket timestamptz, war_id integer, n bigint)
LANGUAGE sql STABLE AS $$
  SELECT time_bucket(interval '1 day', s.captured_at), s.war_id, count(*)
  FROM war_summary_snapshots s
  WHERE s.captured_at >= lo AND s.captured_at < hi
  GROUP BY 1, 2
$$;

CREATE VIEW war_summary_1d AS
  SELECT * FROM war_summary_1d_store
  WHERE bucket < (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'war_summary_1d')
  UNION ALL
  SELECT * FROM war_summary_1d_compute(
    (SELECT watermark FROM rollup_watermarks WHERE rollup_name = 'war_summary_1d'), 'infinity');

INSERT INTO rollup_watermarks (rollup_name, bucket_width, source_table, refresh_order) VALUES
  ('war_summary_1d', interval '1 day', 'war_summary_snapshots', 1);
