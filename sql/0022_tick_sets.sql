-- The sets a full-status tick lists (its campaigns, attack lines, joint operations and the
-- planets' active effects) stored when they change (docs/architecture.md "Planet status:
-- what changed"). Most ticks list the same sets as the tick before: a set is written as one
-- row only at a tick where it differs from the war's tick before; the set at any tick with
-- planets is its latest row at or before it. The planet events (defenses) keep a row per
-- tick: their health moves at nearly every tick.

CREATE TABLE tick_sets (
  war_id      integer     NOT NULL,
  -- campaigns: [[campaign_id, planet_index, type, count, race]] by campaign;
  -- attacks: [[source_index, target_index, lanes]] by source, target;
  -- joint_operations: [[operation_id, planet_index, hq_node_index]] by operation;
  -- effects: [[planet_index, effect_id]] by planet, effect.
  kind        text        NOT NULL CHECK (kind IN ('campaigns', 'attacks', 'joint_operations', 'effects')),
  captured_at timestamptz NOT NULL,
  items       jsonb       NOT NULL,
  PRIMARY KEY (war_id, kind, captured_at)
);

-- Kept until converted (tick_sets_convert below), then dropped.
ALTER TABLE campaign_snapshots RENAME TO campaign_snapshots_dense;
ALTER TABLE planet_attack_snapshots RENAME TO planet_attack_snapshots_dense;
ALTER TABLE joint_operation_snapshots RENAME TO joint_operation_snapshots_dense;
ALTER TABLE planet_effect_snapshots RENAME TO planet_effect_snapshots_dense;

-- The set of a kind at each tick: its latest row at or before the tick.
CREATE FUNCTION tick_set_items(p_kind text)
RETURNS TABLE (captured_at timestamptz, war_id integer, item jsonb) LANGUAGE sql STABLE AS $$
  SELECT t.captured_at, t.war_id, i.item
  FROM full_status_ticks t
  CROSS JOIN LATERAL (
    SELECT s.items FROM tick_sets s WHERE s.war_id = t.war_id AND s.kind = p_kind AND s.captured_at <= t.captured_at
    ORDER BY s.captured_at DESC LIMIT 1) s
  CROSS JOIN LATERAL jsonb_array_elements(s.items) AS i(item)
$$;

-- The rows as they were (a row per item per tick): the reference the reads are tested
-- against, and for ad-hoc SQL over short ranges.
CREATE VIEW campaign_snapshots AS
  SELECT captured_at, war_id, (item->>0)::bigint AS campaign_id, (item->>1)::integer AS planet_index, (item->>2)::integer AS type,
         (item->>3)::integer AS count, (item->>4)::integer AS race
  FROM tick_set_items('campaigns');
CREATE VIEW planet_attack_snapshots AS
  SELECT captured_at, war_id, (item->>0)::integer AS source_index, (item->>1)::integer AS target_index, (item->>2)::integer AS lanes
  FROM tick_set_items('attacks');
CREATE VIEW joint_operation_snapshots AS
  SELECT captured_at, war_id, (item->>0)::bigint AS operation_id, (item->>1)::integer AS planet_index, (item->>2)::integer AS hq_node_index
  FROM tick_set_items('joint_operations');
CREATE VIEW planet_effect_snapshots AS
  SELECT captured_at, war_id, (item->>0)::integer AS planet_index, (item->>1)::bigint AS effect_id
  FROM tick_set_items('effects');

-- The rows of a database written before this migration, converted war by war and day by
-- day (one day per call, a transaction of its own; progress kept), each tick's sets built
-- as the writes build them and kept where they differ from the tick before. Returns a line
-- of progress, or null when done: then the rows the sets stand for are counted against the
-- old ones (a difference stops it) and the old tables go.
CREATE TABLE tick_sets_conversion (
  war_id          integer     PRIMARY KEY,
  converted_until timestamptz NOT NULL
);

CREATE FUNCTION tick_sets_convert() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  w integer;
  lo timestamptz;
  hi timestamptz;
  t record;
  k text;
  stored bigint;
  rebuilt bigint;
BEGIN
  IF to_regclass('campaign_snapshots_dense') IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT f.war_id, coalesce(c.converted_until, '-infinity') INTO w, lo
  FROM (SELECT DISTINCT war_id FROM full_status_ticks) f
  LEFT JOIN tick_sets_conversion c ON c.war_id = f.war_id
  WHERE EXISTS (SELECT 1 FROM full_status_ticks x WHERE x.war_id = f.war_id AND x.captured_at > coalesce(c.converted_until, '-infinity'))
  ORDER BY f.war_id LIMIT 1;
  IF w IS NOT NULL THEN
    SELECT min(captured_at) + interval '1 day' INTO hi FROM full_status_ticks WHERE war_id = w AND captured_at > lo;
    FOR t IN SELECT captured_at AS at FROM full_status_ticks WHERE war_id = w AND captured_at > lo AND captured_at < hi ORDER BY captured_at LOOP
      INSERT INTO tick_sets (war_id, kind, captured_at, items)
      SELECT w, x.kind, t.at, x.items
      FROM (
        SELECT 'campaigns' AS kind, coalesce((SELECT jsonb_agg(jsonb_build_array(campaign_id, planet_index, type, count, race) ORDER BY campaign_id)
                                             FROM campaign_snapshots_dense WHERE war_id = w AND captured_at = t.at), '[]') AS items
        UNION ALL
        SELECT 'attacks', coalesce((SELECT jsonb_agg(jsonb_build_array(source_index, target_index, lanes) ORDER BY source_index, target_index)
                                    FROM planet_attack_snapshots_dense WHERE war_id = w AND captured_at = t.at), '[]')
        UNION ALL
        SELECT 'joint_operations', coalesce((SELECT jsonb_agg(jsonb_build_array(operation_id, planet_index, hq_node_index) ORDER BY operation_id)
                                             FROM joint_operation_snapshots_dense WHERE war_id = w AND captured_at = t.at), '[]')
        UNION ALL
        SELECT 'effects', coalesce((SELECT jsonb_agg(jsonb_build_array(planet_index, effect_id) ORDER BY planet_index, effect_id)
                                    FROM planet_effect_snapshots_dense WHERE war_id = w AND captured_at = t.at), '[]')
      ) x
      WHERE x.items IS DISTINCT FROM (
        SELECT s.items FROM tick_sets s WHERE s.war_id = w AND s.kind = x.kind AND s.captured_at < t.at ORDER BY s.captured_at DESC LIMIT 1);
    END LOOP;
    INSERT INTO tick_sets_conversion AS c (war_id, converted_until) VALUES (w, (SELECT max(captured_at) FROM full_status_ticks
      WHERE war_id = w AND captured_at > lo AND captured_at < hi))
    ON CONFLICT (war_id) DO UPDATE SET converted_until = excluded.converted_until;
    RETURN format('tick sets of war %s converted up to %s', w, to_char(hi AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'));
  END IF;
  -- Every tick converted: the rows the sets stand for, against the rows kept (those of a
  -- tick: a row of no tick was never read).
  FOREACH k IN ARRAY ARRAY['campaign_snapshots', 'planet_attack_snapshots', 'joint_operation_snapshots', 'planet_effect_snapshots'] LOOP
    EXECUTE format('SELECT count(*) FROM %I d WHERE EXISTS (SELECT 1 FROM full_status_ticks f WHERE f.war_id = d.war_id AND f.captured_at = d.captured_at)', k || '_dense') INTO stored;
    EXECUTE format('SELECT count(*) FROM %I', k) INTO rebuilt;
    IF stored <> rebuilt THEN
      RAISE EXCEPTION 'tick sets conversion: % rows of % stood for by the sets, % stored', rebuilt, k, stored;
    END IF;
  END LOOP;
  -- One at a time: TimescaleDB drops a hypertable only alone.
  DROP TABLE campaign_snapshots_dense;
  DROP TABLE planet_attack_snapshots_dense;
  DROP TABLE joint_operation_snapshots_dense;
  DROP TABLE planet_effect_snapshots_dense;
  RETURN NULL;
END
$$;

INSERT INTO schema_data_steps (name, step) VALUES ('tick sets as changes', 'tick_sets_convert');
