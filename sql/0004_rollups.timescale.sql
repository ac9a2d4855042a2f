-- Long-range rollups on TimescaleDB Community: continuous aggregates under the same names
-- and columns as the views of 0004_rollups.sql, real-time (materialized_only = false) so
-- readers see rows up to the last second, refreshed by TimescaleDB's own policies.
-- The coarser levels are hierarchical aggregates over the 5-minute one.

CREATE MATERIALIZED VIEW player_count_5m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
  SELECT time_bucket(interval '5 minutes', captured_at) AS bucket, game_name, source,
         count(*) AS n,
         sum(coalesce(api_total_player_count, total_player_count))::bigint AS sum_v,
         min(coalesce(api_total_player_count, total_player_count)) AS min_v,
         max(coalesce(api_total_player_count, total_player_count)) AS max_v
  FROM player_count_snapshots
  GROUP BY 1, 2, 3
WITH NO DATA;

CREATE MATERIALIZED VIEW player_count_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
  SELECT time_bucket(interval '1 hour', bucket) AS bucket, game_name, source,
         sum(n)::bigint AS n, sum(sum_v)::bigint AS sum_v, min(min_v) AS min_v, max(max_v) AS max_v
  FROM player_count_5m
  GROUP BY 1, 2, 3
WITH NO DATA;

CREATE MATERIALIZED VIEW player_count_1d
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
  SELECT time_bucket(interval '1 day', bucket) AS bucket, game_name, source,
         sum(n)::bigint AS n, sum(sum_v)::bigint AS sum_v, min(min_v) AS min_v, max(max_v) AS max_v
  FROM player_count_1h
  GROUP BY 1, 2, 3
WITH NO DATA;

CREATE MATERIALIZED VIEW planet_status_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
  SELECT time_bucket(interval '1 hour', captured_at) AS bucket, war_id, planet_index,
         count(*) AS n, sum(players)::bigint AS players_sum, max(players) AS players_max,
         last(owner, captured_at) AS owner, last(health, captured_at) AS health,
         last(regen_per_second, captured_at) AS regen_per_second, max(captured_at) AS last_at
  FROM planet_status_snapshots
  GROUP BY 1, 2, 3
WITH NO DATA;

SELECT add_continuous_aggregate_policy('player_count_5m',
  start_offset => interval '6 hours', end_offset => interval '5 minutes', schedule_interval => interval '1 minute');
SELECT add_continuous_aggregate_policy('player_count_1h',
  start_offset => interval '3 days', end_offset => interval '1 hour', schedule_interval => interval '10 minutes');
SELECT add_continuous_aggregate_policy('player_count_1d',
  start_offset => interval '30 days', end_offset => interval '1 day', schedule_interval => interval '1 hour');
SELECT add_continuous_aggregate_policy('planet_status_1h',
  start_offset => interval '3 days', end_offset => interval '1 hour', schedule_interval => interval '5 minutes');

-- TimescaleDB tracks invalidations and runs the refreshes itself: the service's hooks are
-- no-ops here, kept so collectors call the same functions on every edition.
CREATE FUNCTION rollup_refresh(p_name text, p_now timestamptz DEFAULT now())
RETURNS integer LANGUAGE sql AS $$ SELECT 0 $$;

CREATE FUNCTION rollup_invalidate(p_source text, p_from timestamptz)
RETURNS void LANGUAGE sql AS $$ SELECT $$;
