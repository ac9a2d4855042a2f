-- The timeline reads each kind of event by its time, and only the events of the page asked
-- for or of the event log's recent window (storage/timeline.ts): each kind's time is
-- indexed per war. (A campaign's end is found through its last sighting:
-- campaign_spans_last_seen, 0023.)
CREATE INDEX planet_owner_changes_war_time ON planet_owner_changes (war_id, captured_at);
CREATE INDEX planet_event_spans_first_seen ON planet_event_spans (war_id, first_seen_at);
CREATE INDEX defense_outcomes_ended ON defense_outcomes (war_id, ended_at) WHERE seq = 0;
CREATE INDEX campaign_spans_first_seen ON campaign_spans (war_id, first_seen_at);
CREATE INDEX major_orders_war_first_seen ON major_orders (war_id, first_seen_at);
CREATE INDEX major_orders_war_completed ON major_orders (war_id, completed_at) WHERE completed_at IS NOT NULL;

-- When an order not completed expires: its last sighting plus the seconds it had left then.
-- Adding seconds does not depend on the time zone, so the function may be indexed.
CREATE FUNCTION major_order_expiry(last_seen_at timestamptz, expires_in integer) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT last_seen_at + make_interval(secs => expires_in) $$;
CREATE INDEX major_orders_war_expiry ON major_orders (war_id, major_order_expiry(last_seen_at, expires_in_last_seen)) WHERE completed_at IS NULL;
