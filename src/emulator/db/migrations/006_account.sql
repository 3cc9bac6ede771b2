-- The account page: people who sign in by email, their roles in orgs, one-time sign-in links and sessions.
-- Sign-in tokens and session ids are stored only as lowercase hex SHA-256, like API key secrets.

CREATE TABLE persons (
  id               text PRIMARY KEY,
  -- lowercased, so one address is one person whatever its spelling
  email            text NOT NULL UNIQUE,
  created_at       timestamptz NOT NULL,
  last_sign_in_at  timestamptz
);

CREATE TABLE memberships (
  org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  person_id   text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin')),
  invited_by  text REFERENCES persons (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL,
  -- insertion order: the emulator's clock may give two memberships the same time
  seq         bigserial,
  PRIMARY KEY (org_id, person_id)
);
-- One owner per org: two first sign-ins at once cannot both take the default org.
CREATE UNIQUE INDEX memberships_one_owner ON memberships (org_id) WHERE role = 'owner';
CREATE INDEX memberships_person ON memberships (person_id, seq);

CREATE TABLE sign_in_links (
  token_hash  text PRIMARY KEY,
  email       text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX sign_in_links_expiry ON sign_in_links (expires_at);

CREATE TABLE account_sessions (
  id_hash     text PRIMARY KEY,
  person_id   text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  -- the org the person is looking at
  org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX account_sessions_person ON account_sessions (person_id);
