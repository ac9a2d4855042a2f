-- Community edition: the rollups are continuous aggregates (0004, 0007), whose real-time
-- tail TimescaleDB computes itself; nothing to change.
SELECT 1;
