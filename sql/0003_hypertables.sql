-- Time series become hypertables wherever TimescaleDB is installed (either edition).
-- Chunk sizes follow the write rate: the 15 s player counts and the 274-planet ticks
-- get a week per chunk, the sparse series a month.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN
    PERFORM create_hypertable('player_count_snapshots',  by_range('captured_at', interval '7 days'));
    PERFORM create_hypertable('planet_status_snapshots', by_range('captured_at', interval '7 days'));
    PERFORM create_hypertable('war_summary_snapshots',   by_range('captured_at', interval '30 days'));
    PERFORM create_hypertable('major_order_progress',    by_range('captured_at', interval '30 days'));
    PERFORM create_hypertable('planet_stats_snapshots',  by_range('captured_at', interval '30 days'));
  END IF;
END
$$;
