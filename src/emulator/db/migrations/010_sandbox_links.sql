-- Port sessions, desktop links and browser URLs that a key opened onto a sandbox. A link has no state of its own:
-- whether it works is read from its key and its sandbox on every request, so revoking the key (or stopping the
-- sandbox) stops it at once, in every process sharing the database.
CREATE TABLE sandbox_links (
  id          text PRIMARY KEY,
  org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  sandbox_id  text NOT NULL REFERENCES sandboxes (id) ON DELETE CASCADE,
  key_id      text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  -- port, desktop or browser (checked by the operation that makes a link, src/definitions.ts)
  kind        text NOT NULL,
  -- the sandbox port a port session forwards to; NULL for the other kinds
  port        integer,
  -- lowercase hex SHA-256 of the token in the link's URL; the token itself is never stored
  token_hash  text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL
);
CREATE INDEX sandbox_links_org_created ON sandbox_links (org_id, created_at DESC, id DESC);
CREATE INDEX sandbox_links_sandbox ON sandbox_links (sandbox_id);
CREATE INDEX sandbox_links_key ON sandbox_links (key_id);
