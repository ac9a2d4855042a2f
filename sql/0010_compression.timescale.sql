-- Community edition: native compression of the raw hypertables, segmented by each series'
-- key (the primary key minus the time), newest first inside a segment (the order the
-- history pages read). Only the settings: which chunks get compressed, and when, is the
-- compression policy the service sets at start-up from COMPRESS_AFTER_DAYS
-- (src/storage/policies.ts). Apache and plain PostgreSQL have no compression: no variant.
ALTER TABLE player_count_snapshots SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'game_name, source', timescaledb.compress_orderby = 'captured_at DESC');
ALTER TABLE planet_status_snapshots SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'war_id, planet_index', timescaledb.compress_orderby = 'captured_at DESC');
ALTER TABLE war_summary_snapshots SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'war_id', timescaledb.compress_orderby = 'captured_at DESC');
ALTER TABLE major_order_progress SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'order_id32', timescaledb.compress_orderby = 'captured_at DESC');
ALTER TABLE planet_stats_snapshots SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'war_id, planet_index', timescaledb.compress_orderby = 'captured_at DESC');
