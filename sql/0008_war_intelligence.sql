-- What the derived war view (issue 14) reads: current campaigns, owner changes between
-- status ticks, and the first snapshot at which a major order had every task done.

-- The latest tick of a war (whether an order is still in the feed, the data age).
CREATE INDEX full_status_ticks_war_time_idx ON full_status_ticks (war_id, captured_at DESC);

-- The planets being fought over at the latest full-status tick (replaced at every tick).
CREATE TABLE campaigns (
  war_id       integer     NOT NULL,
  campaign_id  bigint      NOT NULL,
  planet_index integer     NOT NULL,
  type         integer     NOT NULL,
  count        integer     NOT NULL,
  updated_at   timestamptz NOT NULL,
  PRIMARY KEY (war_id, campaign_id)
);

-- A planet's owner differs from its previous status tick: the timeline's planet events.
CREATE TABLE planet_owner_changes (
  captured_at  timestamptz NOT NULL,
  war_id       integer     NOT NULL,
  planet_index integer     NOT NULL,
  from_owner   smallint    NOT NULL,
  to_owner     smallint    NOT NULL,
  PRIMARY KEY (war_id, planet_index, captured_at)
);
CREATE INDEX planet_owner_changes_time_idx ON planet_owner_changes (captured_at DESC);

-- Recompute the owner changes of every planet row at or after p_from up to p_to, each
-- against the planet's row before it (a tick written late moves its neighbour's event too).
CREATE FUNCTION planet_owner_changes_rebuild(p_war integer, p_from timestamptz, p_to timestamptz)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  DELETE FROM planet_owner_changes
  WHERE (p_war IS NULL OR war_id = p_war) AND captured_at >= p_from AND captured_at <= p_to;
  INSERT INTO planet_owner_changes (captured_at, war_id, planet_index, from_owner, to_owner)
  SELECT x.captured_at, x.war_id, x.planet_index, x.prev, x.owner
  FROM (
    -- The row before is the window's previous row; for a planet's first row in the range
    -- (only then) it is looked up below the range.
    SELECT s.captured_at, s.war_id, s.planet_index, s.owner,
           coalesce(lag(s.owner) OVER w, (
             SELECT p.owner FROM planet_status_snapshots p
             WHERE p.war_id = s.war_id AND p.planet_index = s.planet_index AND p.captured_at < s.captured_at
             ORDER BY p.captured_at DESC LIMIT 1)) AS prev
    FROM planet_status_snapshots s
    WHERE (p_war IS NULL OR s.war_id = p_war) AND s.captured_at >= p_from AND s.captured_at <= p_to
    WINDOW w AS (PARTITION BY s.war_id, s.planet_index ORDER BY s.captured_at)
  ) x
  WHERE x.prev <> x.owner;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

-- The goal of a task: its value whose valueType is 3 (upstream-feeds.md); null without one.
CREATE FUNCTION mo_task_target(task jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
  SELECT (task -> 'values' ->> (v.i - 1)::int)::numeric
  FROM jsonb_array_elements_text(coalesce(task -> 'valueTypes', '[]')) WITH ORDINALITY AS v(vt, i)
  WHERE v.vt = '3'
  ORDER BY v.i LIMIT 1
$$;

-- A task is done when its progress reaches its goal; a task without a goal (or with a
-- goal of 0) when its slot is non-zero, the spec's rule.
CREATE FUNCTION mo_task_done(task jsonb, value numeric) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN coalesce(mo_task_target(task), 0) > 0 THEN value >= mo_task_target(task) ELSE value <> 0 END
$$;

CREATE FUNCTION mo_tasks_done(tasks jsonb, progress jsonb) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
  SELECT count(*) FILTER (WHERE mo_task_done(tasks -> (e.i - 1)::int, e.p::numeric))::int
  FROM jsonb_array_elements_text(progress) WITH ORDINALITY AS e(p, i)
$$;

ALTER TABLE major_orders ADD COLUMN completed_at timestamptz;

UPDATE major_orders o SET completed_at = (
  SELECT min(p.captured_at) FROM major_order_progress p
  WHERE p.order_id32 = o.order_id32 AND jsonb_array_length(p.progress) > 0
    AND mo_tasks_done(o.tasks, p.progress) = jsonb_array_length(p.progress));

SELECT planet_owner_changes_rebuild(NULL, '-infinity', 'infinity');
