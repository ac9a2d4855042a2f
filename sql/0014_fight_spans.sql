-- One row per planet event and per campaign, kept by the full-status writes beside their
-- per-tick history: when each was first and last seen (and an event's health, deadline and
-- war time at its last sighting, and its first tick at 0 health). The timeline's defense
-- and campaign events read these, not the whole history. Kept order-free (least/greatest),
-- so a tick written late or replayed leaves the same row.

CREATE TABLE planet_event_spans (
  war_id          integer     NOT NULL,
  event_id        bigint      NOT NULL,
  planet_index    integer     NOT NULL,
  event_type      integer     NOT NULL,
  race            integer     NOT NULL,
  campaign_id     bigint      NOT NULL,
  max_health      bigint      NOT NULL,
  first_seen_at   timestamptz NOT NULL,
  last_seen_at    timestamptz NOT NULL,
  -- At the last sighting:
  last_health     bigint      NOT NULL,
  last_war_time   bigint,
  expire_war_time bigint      NOT NULL,
  expires_at      timestamptz NOT NULL,
  -- The first tick that showed its health at 0 (the attack beaten); null: none.
  zero_at         timestamptz,
  PRIMARY KEY (war_id, event_id)
);

CREATE TABLE campaign_spans (
  war_id        integer     NOT NULL,
  campaign_id   bigint      NOT NULL,
  planet_index  integer     NOT NULL,
  type          integer     NOT NULL,
  first_seen_at timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  PRIMARY KEY (war_id, campaign_id)
);

-- From the history already kept.
INSERT INTO planet_event_spans
SELECT DISTINCT ON (e.war_id, e.event_id)
       e.war_id, e.event_id, e.planet_index, e.event_type, e.race, e.campaign_id, e.max_health,
       min(e.captured_at) OVER w, max(e.captured_at) OVER w,
       e.health, f.upstream_war_time, e.expire_war_time, e.expires_at,
       min(e.captured_at) FILTER (WHERE e.health <= 0) OVER w
FROM planet_event_snapshots e
LEFT JOIN full_status_ticks f ON f.war_id = e.war_id AND f.captured_at = e.captured_at
WINDOW w AS (PARTITION BY e.war_id, e.event_id)
ORDER BY e.war_id, e.event_id, e.captured_at DESC;

INSERT INTO campaign_spans
SELECT DISTINCT ON (war_id, campaign_id)
       war_id, campaign_id, planet_index, type, min(captured_at) OVER w, max(captured_at) OVER w
FROM campaign_snapshots
WINDOW w AS (PARTITION BY war_id, campaign_id)
ORDER BY war_id, campaign_id, captured_at DESC;
