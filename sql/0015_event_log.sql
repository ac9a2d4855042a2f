-- The events the service pushes (GET /events/stream, webhooks), in commit order. A write
-- transaction appends the events it makes true (timeline events, a full-status tick, an
-- upstream player count) as its last statement, under a transaction lock, so ids are
-- handed out in commit order: a reader that saw id N has seen every id below N.
-- `key` names what the event is about; (type, war_id, key) is unique, so an event derived
-- again by a later write is not appended twice.

CREATE TABLE event_log (
  id          bigserial   PRIMARY KEY,
  type        text        NOT NULL,
  war_id      integer     NOT NULL,
  key         text        NOT NULL,
  -- When it happened (the timeline's `at`; a tick's capture time).
  at          timestamptz NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  -- The event as the stream sends it (without texts of a language: those are looked up).
  data        jsonb       NOT NULL,
  UNIQUE (type, war_id, key)
);
CREATE INDEX event_log_recorded_at ON event_log (recorded_at);

-- Webhook subscriptions: a URL, the event types it wants, its body format and language,
-- and the secret its deliveries are signed with. A lease (leased_until) marks the process
-- delivering to it, so one process delivers each subscription's events, in order.
CREATE TABLE webhooks (
  id            bigserial   PRIMARY KEY,
  url           text        NOT NULL,
  types         text[]      NOT NULL,
  format        text        NOT NULL CHECK (format IN ('json', 'discord')),
  lang          text,
  secret        text        NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  leased_until  timestamptz,
  last_status   integer,
  last_error    text,
  last_attempt_at timestamptz,
  last_success_at timestamptz,
  failing_since timestamptz
);

-- The outbox: one row per (subscription, event), written in the transaction that appends
-- the event. Pending rows are delivered oldest first per subscription; a delivered or
-- abandoned row stays until its event leaves the log.
CREATE TABLE webhook_deliveries (
  webhook_id      bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id        bigint      NOT NULL REFERENCES event_log (id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- pending, delivered, abandoned (retried for 24 hours without success)
  state           text        NOT NULL DEFAULT 'pending',
  delivered_at    timestamptz,
  last_status     integer,
  last_error      text,
  PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, event_id) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
