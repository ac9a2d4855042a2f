-- Dispatch and major-order texts per language (FEED_LANGUAGES): one row per item and
-- Accept-Language the upstream answered in, the primary language included. The primary's
-- texts also stay where they were (dispatches.message, major_orders.title, briefing,
-- task_description): the answers without `lang` read them, unchanged.
CREATE TABLE dispatch_texts (
  war_id        integer     NOT NULL,
  dispatch_id   bigint      NOT NULL,
  lang          text        NOT NULL,
  message       text        NOT NULL,
  first_seen_at timestamptz NOT NULL,
  PRIMARY KEY (war_id, dispatch_id, lang)
);

CREATE TABLE major_order_texts (
  order_id32       bigint      NOT NULL,
  lang             text        NOT NULL,
  title            text,
  briefing         text,
  task_description text,
  -- The sighting the texts come from: a replayed older tick never overwrites newer texts.
  seen_at          timestamptz NOT NULL,
  PRIMARY KEY (order_id32, lang)
);

-- Every text stored so far was fetched with Accept-Language: en-US (the only language the
-- client sent before this migration).
INSERT INTO dispatch_texts (war_id, dispatch_id, lang, message, first_seen_at)
  SELECT war_id, dispatch_id, 'en-US', message, first_seen_at FROM dispatches WHERE message IS NOT NULL;
INSERT INTO major_order_texts (order_id32, lang, title, briefing, task_description, seen_at)
  SELECT order_id32, 'en-US', title, briefing, task_description, last_seen_at FROM major_orders;
