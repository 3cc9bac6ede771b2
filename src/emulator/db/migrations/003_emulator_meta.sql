-- Settings of one emulator deployment (which org is the default one), kept with its data.

CREATE TABLE emulator_meta (
  key    text PRIMARY KEY,
  value  text NOT NULL
);

CREATE INDEX api_keys_org_active ON api_keys (org_id) WHERE revoked_at IS NULL;
