-- Measured by the benchmark (BENCHMARKS.md):
-- * the live tails of the 1h and 1d views read the level below by bucket alone, which
--   the (game_name, source, bucket) keys cannot serve: index bucket on its own;
-- * unbounded lookups (current value, first row of a series) plan every chunk of the
--   15-second player counts: weekly chunks of ~40k rows made planning cost more than the
--   query, so new chunks span 90 days (~500k rows).
CREATE INDEX player_count_5m_store_bucket_idx ON player_count_5m_store (bucket);
CREATE INDEX player_count_1h_store_bucket_idx ON player_count_1h_store (bucket);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN
    PERFORM set_chunk_time_interval('player_count_snapshots', interval '90 days');
  END IF;
END
$$;
