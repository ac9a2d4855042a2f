-- Community edition: the daily war-summary counts of 0007_war_summary_1d.sql as a
-- real-time continuous aggregate with its refresh policy.
CREATE MATERIALIZED VIEW war_summary_1d
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
  SELECT time_bucket(interval '1 day', captured_at) AS bucket, war_id, count(*) AS n
  FROM war_summary_snapshots
  GROUP BY 1, 2
WITH NO DATA;

SELECT add_continuous_aggregate_policy('war_summary_1d',
  start_offset => interval '30 days', end_offset => interval '1 day', schedule_interval => interval '1 hour');
