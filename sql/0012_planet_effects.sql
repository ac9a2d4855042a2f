-- The planets' world as the feeds tell it (the static parts, biome and hazards, come from
-- the lookup data shipped in assets/upstream-samples/static):
-- - planet_effect_snapshots: the status feed's `planetActiveEffects`, per full-status tick
--   (history, like the fight in 0011): one row per planet and galactic effect active at
--   that tick. A tick whose payload has none has no rows. A hypertable wherever TimescaleDB
--   is installed; its compression settings are in the Community variant of this file.
-- - planets.regions: the war info's `planetRegions` of each planet (newer payloads), as
--   `[{"index": regionIndex, "hash": settingsHash}]` by index; `[]` when the feed lists none.

CREATE TABLE planet_effect_snapshots (
  captured_at  timestamptz NOT NULL,
  war_id       integer     NOT NULL,
  planet_index integer     NOT NULL,
  effect_id    bigint      NOT NULL,
  PRIMARY KEY (war_id, captured_at, planet_index, effect_id)
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb') THEN
    PERFORM create_hypertable('planet_effect_snapshots', by_range('captured_at', interval '30 days'));
  END IF;
END
$$;

ALTER TABLE planets ADD COLUMN regions jsonb NOT NULL DEFAULT '[]'::jsonb;
