-- Community edition variant of 0012_planet_effects.sql: the same, with the new hypertable's
-- compression settings (as 0010 sets them for the others: segmented by the series key,
-- newest first; the policy itself is set at start-up, src/storage/policies.ts).
-- - planet_effect_snapshots: the status feed's `planetActiveEffects`, per full-status tick
--   (history, like the fight in 0011): one row per planet and galactic effect active at
--   that tick. A tick whose payload has none has no rows.
-- - planets.regions: the war info's `planetRegions` of each planet (newer payloads), as
--   `[{"index": regionIndex, "hash": settingsHash}]` by index; `[]` when the feed lists none.

CREATE TABLE planet_effect_snapshots (
  captured_at  timestamptz NOT NULL,
  war_id       integer     NOT NULL,
  planet_index integer     NOT NULL,
  effect_id    bigint      NOT NULL,
  PRIMARY KEY (war_id, captured_at, planet_index, effect_id)
);

SELECT create_hypertable('planet_effect_snapshots', by_range('captured_at', interval '30 days'));

ALTER TABLE planet_effect_snapshots SET (
  timescaledb.compress, timescaledb.compress_segmentby = 'war_id, planet_index', timescaledb.compress_orderby = 'captured_at DESC');

ALTER TABLE planets ADD COLUMN regions jsonb NOT NULL DEFAULT '[]'::jsonb;
