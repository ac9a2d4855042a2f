-- What the status feed says about the fight, kept per full-status tick (history): the
-- campaigns (the `campaigns` table keeps only the latest tick's), planet events (defenses
-- and any other event type, with the event's own health), attack lines and joint
-- operations. Times in war seconds are also stored as wall-clock times, placed relative
-- to the tick's own status time and capture time (see docs/api.md "War time").

CREATE TABLE campaign_snapshots (
  captured_at  timestamptz NOT NULL,
  war_id       integer     NOT NULL,
  campaign_id  bigint      NOT NULL,
  planet_index integer     NOT NULL,
  type         integer     NOT NULL,
  count        integer     NOT NULL,
  race         integer,
  PRIMARY KEY (war_id, campaign_id, captured_at)
);
CREATE INDEX campaign_snapshots_tick_idx ON campaign_snapshots (war_id, captured_at DESC);

CREATE TABLE planet_event_snapshots (
  captured_at         timestamptz NOT NULL,
  war_id              integer     NOT NULL,
  event_id            bigint      NOT NULL,
  planet_index        integer     NOT NULL,
  event_type          integer     NOT NULL,
  race                integer     NOT NULL,
  health              bigint      NOT NULL,
  max_health          bigint      NOT NULL,
  start_war_time      bigint      NOT NULL,
  expire_war_time     bigint      NOT NULL,
  starts_at           timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL,
  campaign_id         bigint      NOT NULL,
  joint_operation_ids bigint[]    NOT NULL,
  PRIMARY KEY (war_id, event_id, captured_at)
);
CREATE INDEX planet_event_snapshots_tick_idx ON planet_event_snapshots (war_id, captured_at DESC);

-- The feed lists an attack line once per lane: `lanes` counts them.
CREATE TABLE planet_attack_snapshots (
  captured_at  timestamptz NOT NULL,
  war_id       integer     NOT NULL,
  source_index integer     NOT NULL,
  target_index integer     NOT NULL,
  lanes        integer     NOT NULL,
  PRIMARY KEY (war_id, captured_at, source_index, target_index)
);

CREATE TABLE joint_operation_snapshots (
  captured_at   timestamptz NOT NULL,
  war_id        integer     NOT NULL,
  operation_id  bigint      NOT NULL,
  planet_index  integer     NOT NULL,
  hq_node_index integer     NOT NULL,
  PRIMARY KEY (war_id, operation_id, captured_at)
);
