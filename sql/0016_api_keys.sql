-- API keys of heavy users (X-API-Key): their own budgets instead of their address's. Only
-- the SHA-256 of a key is stored; the key itself is shown once, when it is created
-- (`npm run keys -- create`). A revoked key keeps its row, for the list.
CREATE TABLE api_keys (
  id             integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- hex SHA-256 of the whole key
  key_sha256     text NOT NULL UNIQUE CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
  -- the key's first characters, to tell keys apart in the list (never enough to use one)
  key_prefix     text NOT NULL,
  -- null: RATE_LIMIT_KEY_QUOTA and RATE_LIMIT_WINDOW_SECONDS
  quota          integer CHECK (quota > 0),
  window_seconds integer CHECK (window_seconds BETWEEN 1 AND 86400),
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);
