-- A defense's outcome is decided once, by the first tick at which a rule decides it, and
-- kept: the timeline and the event stream say it, so a later write never decides it
-- again. Where later data truly changes it (a tick written late), a correction is kept
-- beside it, naming the pushed event it corrects (docs/api.md "Timeline").

CREATE TABLE defense_outcomes (
  war_id       integer     NOT NULL,
  event_id     bigint      NOT NULL,
  -- 0: the decision; 1, 2, ...: corrections, each replacing the outcome before it.
  seq          integer     NOT NULL,
  outcome      text        NOT NULL CHECK (outcome IN ('defense_won', 'defense_lost')),
  -- When it ended, by the rules: the tick that decided it.
  ended_at     timestamptz NOT NULL,
  -- The war's latest tick when it was written: a correction's time on the timeline.
  decided_at   timestamptz NOT NULL,
  -- A correction: the outcome it replaces, and the pushed event (event_log id) that said
  -- it; null when that outcome was never pushed (imported history).
  was_outcome  text,
  was_ended_at timestamptz,
  corrects     bigint,
  PRIMARY KEY (war_id, event_id, seq)
);
CREATE INDEX defense_outcomes_decided ON defense_outcomes (war_id, decided_at) WHERE seq > 0;

-- A write looks at the events seen since the tick before it; campaign events name their
-- defense's event.
CREATE INDEX planet_event_spans_last_seen ON planet_event_spans (war_id, last_seen_at);
CREATE INDEX planet_event_spans_campaign ON planet_event_spans (war_id, campaign_id);

-- How the rules end event `e` given the ticks stored now (null outcome: still running).
-- Whichever of these comes first, in time order (at the same tick, in this order):
-- 1. a tick that shows its health at 0 (the attack beaten): won;
-- 2. a tick at or past its expiry (war time), listed with health left or gone: lost;
-- 3. the first tick after its first sighting that does not list it, before its expiry:
--    won if the players hold the planet at that tick, lost if they do not.
-- Ticks count when they stored planets. The search for a tick without it is bounded by
-- the event's own sightings, so its cost follows the event's length, not the history's.
CREATE FUNCTION defense_end(p_war integer, p_event bigint, OUT outcome text, OUT ended_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  e planet_event_spans%ROWTYPE;
  expiry timestamptz;
  gone timestamptz;
  gone_owner smallint;
BEGIN
  SELECT * INTO e FROM planet_event_spans s WHERE s.war_id = p_war AND s.event_id = p_event;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT f.captured_at INTO expiry FROM full_status_ticks f
  WHERE f.war_id = p_war AND f.upstream_war_time >= e.expire_war_time AND f.captured_at > e.first_seen_at AND f.planets_written > 0
  ORDER BY f.upstream_war_time LIMIT 1;
  -- A tick between its first and last sightings that does not list it; else the tick after its last.
  SELECT min(f.captured_at) INTO gone FROM full_status_ticks f
  WHERE f.war_id = p_war AND f.captured_at > e.first_seen_at AND f.captured_at < e.last_seen_at AND f.planets_written > 0
    AND f.captured_at NOT IN (
      SELECT x.captured_at FROM planet_event_snapshots x
      WHERE x.war_id = p_war AND x.event_id = p_event AND x.captured_at >= e.first_seen_at AND x.captured_at <= e.last_seen_at);
  IF gone IS NULL THEN
    SELECT f.captured_at INTO gone FROM full_status_ticks f
    WHERE f.war_id = p_war AND f.captured_at > e.last_seen_at AND f.planets_written > 0
    ORDER BY f.captured_at LIMIT 1;
  END IF;
  IF e.zero_at IS NOT NULL AND (expiry IS NULL OR e.zero_at <= expiry) AND (gone IS NULL OR e.zero_at <= gone) THEN
    outcome := 'defense_won'; ended_at := e.zero_at;
  ELSIF expiry IS NOT NULL AND (gone IS NULL OR expiry <= gone) THEN
    outcome := 'defense_lost'; ended_at := expiry;
  ELSIF gone IS NOT NULL THEN
    SELECT s.owner INTO gone_owner FROM planet_status_snapshots s
    WHERE s.war_id = p_war AND s.planet_index = e.planet_index AND s.captured_at = gone;
    outcome := CASE WHEN gone_owner IS NOT NULL AND gone_owner <> 1 THEN 'defense_lost' ELSE 'defense_won' END;
    ended_at := gone;
  END IF;
END
$$;

-- After a write of a war's ticks: decide the events the rules now end and that were not
-- decided, and correct those whose outcome the rules now give otherwise. Only events seen
-- at or after `p_since` (the tick before the earliest one written; null: every event of
-- the war) can have changed: an event last seen before it was decided before it. Returns
-- the rows written.
CREATE FUNCTION defense_decide(p_war integer, p_since timestamptz) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  WITH now_ended AS (
    SELECT s.event_id, d.outcome, d.ended_at
    FROM planet_event_spans s CROSS JOIN LATERAL defense_end(s.war_id, s.event_id) d
    WHERE s.war_id = p_war AND (p_since IS NULL OR s.last_seen_at >= p_since) AND d.outcome IS NOT NULL
  ), said AS (
    SELECT DISTINCT ON (o.event_id) o.* FROM defense_outcomes o
    WHERE o.war_id = p_war AND o.event_id IN (SELECT event_id FROM now_ended)
    ORDER BY o.event_id, o.seq DESC
  ), latest_tick AS (
    SELECT max(captured_at) AS t FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0
  ), written AS (
    INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at, was_outcome, was_ended_at, corrects)
    SELECT p_war, x.event_id, coalesce(o.seq + 1, 0), x.outcome, x.ended_at, (SELECT t FROM latest_tick),
           o.outcome, o.ended_at,
           (SELECT l.id FROM event_log l
            WHERE l.war_id = p_war AND ((o.seq = 0 AND l.type = o.outcome AND l.key = x.event_id::text)
                                     OR (o.seq > 0 AND l.type = 'event_corrected' AND l.key = x.event_id || '#' || o.seq)))
    FROM now_ended x LEFT JOIN said o ON o.event_id = x.event_id
    WHERE o.event_id IS NULL OR o.outcome <> x.outcome
    RETURNING 1
  )
  SELECT count(*)::int INTO n FROM written;
  RETURN n;
END
$$;

-- The history already kept: every event decided by the rules above.
SELECT defense_decide(w.war_id, NULL) FROM (SELECT DISTINCT war_id FROM planet_event_spans) w;

-- Outcomes the event stream already pushed that the rules now give otherwise (the rule
-- order before this migration could push an event won, then lost): each is corrected.
INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at, was_outcome, was_ended_at, corrects)
SELECT o.war_id, o.event_id, row_number() OVER (PARTITION BY o.war_id, o.event_id ORDER BY l.id)::int, o.outcome, o.ended_at,
       coalesce((SELECT max(captured_at) FROM full_status_ticks f WHERE f.war_id = o.war_id AND f.planets_written > 0), o.decided_at),
       l.type, l.at, l.id
FROM defense_outcomes o
JOIN event_log l ON l.war_id = o.war_id AND l.key = o.event_id::text AND l.type IN ('defense_won', 'defense_lost') AND l.type <> o.outcome
WHERE o.seq = 0;
