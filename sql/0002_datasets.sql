-- Every dataset of the spec. Time series get their hypertables in 0003; everything here
-- is plain PostgreSQL so it runs on all editions.

-- player-count snapshots (player-count collector). Two row shapes share the table:
--   source 'pcstore':  pcstore/console/total counts, about every 10 minutes, per game;
--   source 'upstream': the cross-platform total, about every 15 s, de-duplicated by the
--                      upstream war-status time (kept in upstream_war_time).
CREATE TABLE player_count_snapshots (
  captured_at            timestamptz NOT NULL,
  game_name              text        NOT NULL CHECK (game_name IN ('Game', 'Game 2')),
  source                 text        NOT NULL CHECK (source IN ('pcstore', 'upstream')),
  pcstore_player_count   integer,
  console_player_count   integer,
  total_player_count     integer,
  api_total_player_count integer,
  war_id                 integer,
  upstream_war_time      bigint,
  CHECK ((source = 'pcstore') = (pcstore_player_count IS NOT NULL AND total_player_count IS NOT NULL)),
  CHECK ((source = 'upstream') = (api_total_player_count IS NOT NULL AND upstream_war_time IS NOT NULL)),
  PRIMARY KEY (game_name, source, captured_at)
);
-- /historical-player-count pages by time, with or without gameName.
CREATE INDEX player_count_snapshots_captured_at_idx ON player_count_snapshots (captured_at DESC);

-- Wars and lookups (war-info collector).
CREATE TABLE wars (
  war_id                 integer     PRIMARY KEY,
  start_date             timestamptz,
  end_date               timestamptz,
  minimum_client_version text,
  first_seen_at          timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE factions (
  faction_id smallint PRIMARY KEY,
  name       text     NOT NULL
);

-- Sector names come from the community lookup data: the upstream numeric sector ids do
-- not map one-to-one onto names, so the name is the key.
CREATE TABLE sectors (
  sector_name text    PRIMARY KEY,
  planet_count integer NOT NULL DEFAULT 0
);

-- Planet lookup, per war (planets can move and lines change between wars).
CREATE TABLE planets (
  war_id             integer          NOT NULL REFERENCES wars (war_id),
  planet_index       integer          NOT NULL,
  name               text             NOT NULL,
  sector_name        text,
  biome              text,
  position_x         double precision NOT NULL,
  position_y         double precision NOT NULL,
  max_health         bigint           NOT NULL,
  initial_owner      smallint         NOT NULL,
  disabled           boolean          NOT NULL DEFAULT false,
  settings_hash      bigint,
  upstream_sector_id integer,
  waypoints          integer[]        NOT NULL DEFAULT '{}',
  updated_at         timestamptz      NOT NULL DEFAULT now(),
  PRIMARY KEY (war_id, planet_index)
);

-- Current per-planet state (war-info collector, refreshed about every minute).
CREATE TABLE planet_war_info (
  war_id            integer          NOT NULL,
  planet_index      integer          NOT NULL,
  owner             smallint         NOT NULL,
  health            bigint           NOT NULL,
  regen_per_second  double precision NOT NULL,
  players           integer          NOT NULL,
  upstream_war_time bigint           NOT NULL,
  updated_at        timestamptz      NOT NULL,
  PRIMARY KEY (war_id, planet_index),
  FOREIGN KEY (war_id, planet_index) REFERENCES planets (war_id, planet_index)
);

-- One row per archived full-status tick; its key (war, upstream war time) is what makes
-- a repeated tick write nothing.
CREATE TABLE full_status_ticks (
  war_id            integer     NOT NULL,
  upstream_war_time bigint      NOT NULL,
  captured_at       timestamptz NOT NULL,
  planets_written   integer     NOT NULL,
  PRIMARY KEY (war_id, upstream_war_time)
);

-- Per-planet status history (full-status collector).
CREATE TABLE planet_status_snapshots (
  captured_at      timestamptz      NOT NULL,
  war_id           integer          NOT NULL,
  planet_index     integer          NOT NULL,
  owner            smallint         NOT NULL,
  health           bigint           NOT NULL,
  regen_per_second double precision NOT NULL,
  players          integer          NOT NULL,
  PRIMARY KEY (war_id, planet_index, captured_at)
);

-- Galaxy war summary history: cumulative counters, one row per full-status tick.
CREATE TABLE war_summary_snapshots (
  captured_at          timestamptz NOT NULL,
  war_id               integer     NOT NULL,
  upstream_war_time    bigint      NOT NULL,
  bug_kills            bigint      NOT NULL,
  automaton_kills      bigint      NOT NULL,
  illuminate_kills     bigint      NOT NULL,
  deaths               bigint      NOT NULL,
  missions_won         bigint      NOT NULL,
  missions_lost        bigint      NOT NULL,
  mission_time         bigint      NOT NULL,
  bullets_fired        bigint      NOT NULL,
  bullets_hit          bigint      NOT NULL,
  time_played          bigint      NOT NULL,
  revives              bigint      NOT NULL,
  friendlies           bigint      NOT NULL,
  mission_success_rate double precision NOT NULL,
  accuracy             double precision NOT NULL,
  PRIMARY KEY (war_id, captured_at)
);

-- Major orders: one row per order id, upserted on every sighting.
CREATE TABLE major_orders (
  order_id32           bigint      PRIMARY KEY,
  war_id               integer     NOT NULL,
  first_seen_at        timestamptz NOT NULL,
  last_seen_at         timestamptz NOT NULL,
  expires_in_last_seen integer     NOT NULL,
  start_war_time       bigint,
  setting_type         integer,
  flags                integer,
  title                text,
  briefing             text,
  task_description     text,
  tasks                jsonb,
  rewards              jsonb       NOT NULL DEFAULT '[]',
  reward_medals        integer     NOT NULL DEFAULT 0
);
CREATE INDEX major_orders_war_last_seen_idx ON major_orders (war_id, last_seen_at DESC);
CREATE INDEX major_orders_last_seen_idx ON major_orders (last_seen_at DESC);

-- Progress of each major order at each full-status tick (raw upstream array).
CREATE TABLE major_order_progress (
  captured_at timestamptz NOT NULL,
  order_id32  bigint      NOT NULL,
  war_id      integer     NOT NULL,
  progress    jsonb       NOT NULL,
  PRIMARY KEY (order_id32, captured_at)
);

-- Dispatches (newsfeed). published_war_time is the raw upstream war time that the
-- `since` filter compares against; published_at is its wall-clock estimate.
CREATE TABLE dispatches (
  war_id             integer     NOT NULL,
  dispatch_id        bigint      NOT NULL,
  published_war_time bigint      NOT NULL,
  published_at       timestamptz NOT NULL,
  type               integer     NOT NULL DEFAULT 0,
  message            text,
  first_seen_at      timestamptz NOT NULL,
  PRIMARY KEY (war_id, dispatch_id)
);
CREATE INDEX dispatches_war_published_idx ON dispatches (war_id, published_at DESC, dispatch_id DESC);
CREATE INDEX dispatches_published_idx ON dispatches (published_at DESC, dispatch_id DESC);

-- Per-planet cumulative statistics from the community API (planet-stats collector):
-- a row only when a planet's counters changed since its previous row.
CREATE TABLE planet_stats_snapshots (
  captured_at          timestamptz NOT NULL,
  war_id               integer     NOT NULL,
  planet_index         integer     NOT NULL,
  missions_won         bigint      NOT NULL,
  missions_lost        bigint      NOT NULL,
  mission_time         bigint      NOT NULL,
  bug_kills            bigint      NOT NULL,
  automaton_kills      bigint      NOT NULL,
  illuminate_kills     bigint      NOT NULL,
  bullets_fired        bigint      NOT NULL,
  bullets_hit          bigint      NOT NULL,
  time_played          bigint      NOT NULL,
  deaths               bigint      NOT NULL,
  revives              bigint      NOT NULL,
  friendlies           bigint      NOT NULL,
  mission_success_rate double precision NOT NULL,
  accuracy             double precision NOT NULL,
  player_count         integer     NOT NULL,
  PRIMARY KEY (war_id, planet_index, captured_at)
);
-- /historical-dispatches?since= filters on the raw war time.
CREATE INDEX dispatches_war_time_idx ON dispatches (war_id, published_war_time);
