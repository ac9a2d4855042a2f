-- The defenses' decision after a write in time order, at a cost that follows the write,
-- not the defenses' lengths (0019 as it was applied stays as it is).
--
-- After ticks written in time order (each later than every stored tick, war times rising
-- too), an outcome already said cannot change: every time a rule ends a defense at is a
-- stored tick at or before p_since (the stored tick before the earliest one written), and
-- the new ticks are all later. A defense not decided yet had no tick without it between
-- its sightings up to p_since either, or the write that stored that tick would have
-- decided it. So only the undecided defenses seen since p_since are looked at, and their
-- search for a tick without them starts at p_since. A write out of time order (a late
-- tick, a war time that goes back) looks at every defense seen since p_since, from their
-- first sightings, as before.

DROP FUNCTION defense_decide(integer, timestamptz);
DROP FUNCTION defense_end(integer, bigint);

-- How the rules end event `e` given the ticks stored now (null outcome: still running),
-- as in 0019; p_gaps_from: where the search for a tick without it between its sightings
-- starts (null: its first sighting).
CREATE FUNCTION defense_end(p_war integer, p_event bigint, p_gaps_from timestamptz DEFAULT NULL, OUT outcome text, OUT ended_at timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  e planet_event_spans%ROWTYPE;
  expiry timestamptz;
  gone timestamptz;
  gone_owner smallint;
  gaps_from timestamptz;
BEGIN
  SELECT * INTO e FROM planet_event_spans s WHERE s.war_id = p_war AND s.event_id = p_event;
  IF NOT FOUND THEN RETURN; END IF;
  gaps_from := greatest(e.first_seen_at, p_gaps_from);
  SELECT f.captured_at INTO expiry FROM full_status_ticks f
  WHERE f.war_id = p_war AND f.upstream_war_time >= e.expire_war_time AND f.captured_at > e.first_seen_at AND f.planets_written > 0
  ORDER BY f.upstream_war_time LIMIT 1;
  -- A tick between its first and last sightings that does not list it; else the tick after its last.
  SELECT min(f.captured_at) INTO gone FROM full_status_ticks f
  WHERE f.war_id = p_war AND f.captured_at > gaps_from AND f.captured_at < e.last_seen_at AND f.planets_written > 0
    AND f.captured_at NOT IN (
      SELECT x.captured_at FROM planet_event_snapshots x
      WHERE x.war_id = p_war AND x.event_id = p_event AND x.captured_at >= gaps_from AND x.captured_at <= e.last_seen_at);
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
-- decided, and correct those whose outcome the rules now give otherwise (0019). p_since:
-- the stored tick before the earliest one written (null: none, every event is looked
-- at); p_in_order: the caller wrote each tick later, in capture time and in war time,
-- than every tick stored before it. Each event's outcome said last is looked up by its
-- key (a join over every outcome of the war grew with the history). Returns the rows
-- written.
CREATE FUNCTION defense_decide(p_war integer, p_since timestamptz, p_in_order boolean DEFAULT false) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
  in_order boolean := p_in_order AND p_since IS NOT NULL;
BEGIN
  WITH now_ended AS (
    SELECT s.event_id, d.outcome, d.ended_at, o.seq, o.outcome AS said, o.ended_at AS said_ended_at
    FROM planet_event_spans s
    LEFT JOIN LATERAL (
      SELECT o.seq, o.outcome, o.ended_at FROM defense_outcomes o
      WHERE o.war_id = p_war AND o.event_id = s.event_id ORDER BY o.seq DESC LIMIT 1) o ON true
    CROSS JOIN LATERAL defense_end(s.war_id, s.event_id, CASE WHEN in_order THEN p_since END) d
    WHERE s.war_id = p_war AND s.last_seen_at >= coalesce(p_since, '-infinity')
      AND NOT (in_order AND o.seq IS NOT NULL)
      AND d.outcome IS NOT NULL AND (o.seq IS NULL OR o.outcome <> d.outcome)
  ), written AS (
    INSERT INTO defense_outcomes (war_id, event_id, seq, outcome, ended_at, decided_at, was_outcome, was_ended_at, corrects)
    SELECT p_war, x.event_id, coalesce(x.seq + 1, 0), x.outcome, x.ended_at,
           (SELECT max(captured_at) FROM full_status_ticks WHERE war_id = p_war AND planets_written > 0),
           x.said, x.said_ended_at,
           (SELECT l.id FROM event_log l
            WHERE l.war_id = p_war AND ((x.seq = 0 AND l.type = x.said AND l.key = x.event_id::text)
                                     OR (x.seq > 0 AND l.type = 'event_corrected' AND l.key = x.event_id || '#' || x.seq)))
    FROM now_ended x
    RETURNING 1
  )
  SELECT count(*)::int INTO n FROM written;
  RETURN n;
END
$$;
