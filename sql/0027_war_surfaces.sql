-- The game's 2025 surfaces (issue 38; docs/architecture.md "The 2025 surfaces"): planet
-- regions, planet positions, space stations and their tactical actions, global resources
-- and global events, stored as what changed, in the layout of planet_status_changes
-- (sql/0021): an item's row is written at a tick where its state differs from its state at
-- the war's tick before, and a row with a null state where it leaves the feed. Its state at
-- any tick is its latest row at or before it. One table for every kind: each is a keyed
-- list of items whose state is a small JSON object, written and read the same way.

CREATE TABLE war_item_changes (
  war_id      integer     NOT NULL,
  -- region (key planet_index * 1000 + region_index), position (planet_index), station
  -- (id32), tactical_action (id32), resource (id32), global_event (eventId).
  kind        text        NOT NULL,
  item_key    bigint      NOT NULL,
  captured_at timestamptz NOT NULL,
  -- Null: the item is not in the feed from this tick on.
  state       jsonb,
  PRIMARY KEY (war_id, kind, item_key, captured_at)
);
CREATE INDEX war_item_changes_tick ON war_item_changes (war_id, kind, captured_at);

-- The ticks that listed each kind (a 2024 capture lists none): what an item's state at a
-- tick is carried over, and where a tick written late restates what came after it.
CREATE TABLE war_item_ticks (
  war_id      integer     NOT NULL,
  kind        text        NOT NULL,
  captured_at timestamptz NOT NULL,
  PRIMARY KEY (war_id, kind, captured_at)
);

-- Each item's state at the war's latest tick that listed its kind (null: out of the feed):
-- what an in-order write compares a tick with.
CREATE TABLE war_item_latest (
  war_id   integer NOT NULL,
  kind     text    NOT NULL,
  item_key bigint  NOT NULL,
  state    jsonb,
  PRIMARY KEY (war_id, kind, item_key)
);

-- Ticks of one war that list items of one kind, each with its items: tick k's are
-- [p_start[k], p_start[k + 1]) of p_key and p_state (an empty range: none in play, every
-- item known leaves). Ticks later than every stored tick listing the kind (live, an import
-- in order) are compared one after the other with war_item_latest. Otherwise (p_late: the
-- one tick is before a stored tick) with p_next the stored tick after it that listed the
-- kind: its rows where its state differs from the state at the stored tick before it; for
-- each item that changed, a row at p_next restating the state p_next had (unless p_next
-- has a row of its own), so no later tick changes; and no row at p_next that now says the
-- same as this tick. Returns the change rows written.
CREATE FUNCTION war_item_write(
  p_war integer, p_kind text, p_late boolean, p_at timestamptz[], p_start integer[], p_key bigint[], p_state jsonb[])
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer := 0;
  m integer;
  k integer;
  a integer;
  b integer;
  p_next timestamptz;
BEGIN
  INSERT INTO war_item_ticks (war_id, kind, captured_at) SELECT p_war, p_kind, at FROM unnest(p_at) AS at ON CONFLICT DO NOTHING;
  IF p_late THEN
    SELECT min(captured_at) INTO p_next FROM war_item_ticks WHERE war_id = p_war AND kind = p_kind AND captured_at > p_at[1];
  END IF;
  IF p_next IS NULL THEN
    FOR k IN 1 .. cardinality(p_at) LOOP
      a := p_start[k];
      b := p_start[k + 1] - 1;
      WITH r AS (
        SELECT * FROM unnest(p_key[a:b], p_state[a:b]) AS r(item_key, state)
      ), d AS (
        SELECT coalesce(r.item_key, l.item_key) AS item_key, r.state
        FROM r FULL JOIN (SELECT * FROM war_item_latest WHERE war_id = p_war AND kind = p_kind) l ON l.item_key = r.item_key
        WHERE r.state IS DISTINCT FROM l.state
      ), changes AS (
        INSERT INTO war_item_changes (war_id, kind, item_key, captured_at, state)
        SELECT p_war, p_kind, d.item_key, p_at[k], d.state FROM d
        RETURNING 1
      ), latest AS (
        INSERT INTO war_item_latest AS l (war_id, kind, item_key, state)
        SELECT p_war, p_kind, d.item_key, d.state FROM d
        ON CONFLICT (war_id, kind, item_key) DO UPDATE SET state = excluded.state
      )
      SELECT count(*) INTO m FROM changes;
      n := n + m;
    END LOOP;
    RETURN n;
  END IF;
  WITH r AS (
    SELECT * FROM unnest(p_key, p_state) AS r(item_key, state)
  ), known AS (
    SELECT item_key FROM war_item_latest WHERE war_id = p_war AND kind = p_kind
    UNION SELECT item_key FROM r
  ), d AS (
    SELECT kn.item_key, r.state, b.state AS b_state,
           (SELECT true FROM war_item_changes x
            WHERE x.war_id = p_war AND x.kind = p_kind AND x.item_key = kn.item_key AND x.captured_at = p_next) AS next_has_row
    FROM known kn
    LEFT JOIN r ON r.item_key = kn.item_key
    LEFT JOIN LATERAL (
      SELECT c.state FROM war_item_changes c
      WHERE c.war_id = p_war AND c.kind = p_kind AND c.item_key = kn.item_key AND c.captured_at < p_at[1]
      ORDER BY c.captured_at DESC LIMIT 1) b ON true
  ), changed AS (
    SELECT * FROM d WHERE d.state IS DISTINCT FROM d.b_state
  ), rows AS (
    INSERT INTO war_item_changes (war_id, kind, item_key, captured_at, state)
    SELECT p_war, p_kind, item_key, p_at[1], state FROM changed
    UNION ALL
    SELECT p_war, p_kind, item_key, p_next, b_state FROM changed WHERE next_has_row IS NULL
    RETURNING 1
  ), same AS (
    -- A row of p_next that now says what this tick says: no change there any more.
    DELETE FROM war_item_changes x USING changed c
    WHERE x.war_id = p_war AND x.kind = p_kind AND x.item_key = c.item_key AND x.captured_at = p_next
      AND x.state IS NOT DISTINCT FROM c.state
  ), known_now AS (
    -- An item first seen in this tick: known from now on (out of the feed at the ticks after).
    INSERT INTO war_item_latest (war_id, kind, item_key, state)
    SELECT p_war, p_kind, item_key, NULL FROM r
    ON CONFLICT (war_id, kind, item_key) DO NOTHING
  )
  SELECT count(*) INTO n FROM rows;
  RETURN n;
END
$$;

-- The regions of each planet as the war info lists them (every region, always complete):
-- what the status's regions are measured against. Upserted when a value changes.
CREATE TABLE planet_regions (
  war_id            integer          NOT NULL,
  planet_index      integer          NOT NULL,
  region_index      integer          NOT NULL,
  settings_hash     bigint           NOT NULL,
  max_health        bigint,
  -- 0 settlement, 1 town, 2 city, 3 megacity.
  region_size       integer,
  damage_multiplier double precision,
  flags             integer,
  updated_at        timestamptz      NOT NULL,
  PRIMARY KEY (war_id, planet_index, region_index)
);

-- The global events' texts per language, as dispatch_texts: a text replaced only when it
-- changed (an event can be retitled while it runs).
CREATE TABLE global_event_texts (
  war_id      integer     NOT NULL,
  event_id    bigint      NOT NULL,
  lang        text        NOT NULL,
  title       text,
  message     text,
  captured_at timestamptz NOT NULL,
  PRIMARY KEY (war_id, event_id, lang)
);

-- The galactic war effects' definitions (GET /WarSeason/GalacticWarEffects, on the war-info
-- cadence; not per war). Upserted when a value changes.
CREATE TABLE galactic_war_effects (
  effect_id   bigint           PRIMARY KEY,
  effect_type integer          NOT NULL,
  value_types integer[]        NOT NULL,
  "values"    double precision[] NOT NULL,
  definition  jsonb            NOT NULL,
  updated_at  timestamptz      NOT NULL
);
