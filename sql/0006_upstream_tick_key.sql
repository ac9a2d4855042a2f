-- An upstream player-count row is keyed by (war, upstream war time): the collector checks
-- for any row with that key, not only the latest one, so a tick replayed from the spool
-- after a restart, or written by another replica, is never stored twice.
CREATE INDEX player_count_snapshots_upstream_tick_idx
  ON player_count_snapshots (war_id, upstream_war_time)
  WHERE source = 'upstream';
