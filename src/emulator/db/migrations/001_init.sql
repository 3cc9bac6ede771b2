-- The emulator's schema. Plain SQL that runs unchanged on PGlite and PostgreSQL.

CREATE TABLE orgs (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  org_id        text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  name          text NOT NULL,
  prefix        text NOT NULL,
  -- lowercase hex SHA-256 of the secret; the secret itself is never stored
  secret_hash   text NOT NULL UNIQUE,
  created_by    text,
  created_at    timestamptz NOT NULL,
  last_used_at  timestamptz,
  expires_at    timestamptz,
  revoked_at    timestamptz
);
CREATE INDEX api_keys_org_created ON api_keys (org_id, created_at DESC);

CREATE TABLE webhook_endpoints (
  id                 text PRIMARY KEY,
  org_id             text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  url                text NOT NULL,
  events             text[] NOT NULL,
  description        text,
  -- AES-256-GCM under the vault key: base64 of iv || ciphertext || tag
  secret_ciphertext  text NOT NULL,
  created_at         timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_org_created ON webhook_endpoints (org_id, created_at DESC);

CREATE TABLE sandboxes (
  id             text PRIMARY KEY,
  org_id         text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  name           text NOT NULL,
  status         text NOT NULL,
  desired_state  text NOT NULL,
  last_error     text,
  expires_at     timestamptz,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);
CREATE INDEX sandboxes_org ON sandboxes (org_id, created_at DESC);
CREATE INDEX sandboxes_expiry ON sandboxes (expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE events (
  id          text PRIMARY KEY,
  org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  type        text NOT NULL,
  created_at  timestamptz NOT NULL,
  -- the exact JSON bytes sent on every attempt
  body        text NOT NULL
);
CREATE INDEX events_org_created ON events (org_id, created_at DESC);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE deliveries (
  id                text PRIMARY KEY,
  org_id            text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  event_id          text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  endpoint_id       text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_type        text NOT NULL,
  status            text NOT NULL,
  attempts          integer NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL,
  last_attempt_at   timestamptz,
  next_attempt_at   timestamptz,
  last_status_code  integer,
  -- a worker holds a delivery while it attempts it; a crash frees it when the lease runs out
  locked_until      timestamptz,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX deliveries_endpoint_created ON deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_created ON deliveries (created_at);

CREATE TABLE delivery_attempts (
  delivery_id    text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt        integer NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    integer NOT NULL,
  status_code    integer,
  error          text,
  response_body  text,
  trigger        text NOT NULL DEFAULT 'scheduled',
  PRIMARY KEY (delivery_id, attempt)
);
