-- When a full-status tick's war time was last seen again. The same upstream war time at a
-- later capture claims no new tick (the key is war and war time), so without this a war
-- whose clock stopped (a frozen war) and a feed that stopped answering look alike.
ALTER TABLE full_status_ticks ADD COLUMN last_seen_at timestamptz;

-- When each other part of a tick was fetched: the tick's time (captured_at) is its status's
-- fetch time, and the summary, assignments and newsfeed can come from the feed client's
-- cache or a fresh request, up to its TTL apart. Null on ticks stored before.
ALTER TABLE full_status_ticks
  ADD COLUMN summary_fetched_at     timestamptz,
  ADD COLUMN assignments_fetched_at timestamptz,
  ADD COLUMN newsfeed_fetched_at    timestamptz;
