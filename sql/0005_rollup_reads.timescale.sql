-- Community edition: the rollups are continuous aggregates (no store tables to index);
-- the chunk interval change of 0005_rollup_reads.sql applies here too.
SELECT set_chunk_time_interval('player_count_snapshots', interval '90 days');
