-- A clock of its own for one org (test isolation: each test file moves its org's time and no other's). A row holds
-- how far the org's time runs ahead of the emulator's clock; an org without a row follows the emulator's clock.
-- Every process sharing the database reads the offset from here, so claims and expiry agree on what is due.
CREATE TABLE org_clocks (
  org_id     text PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
  offset_ms  bigint NOT NULL,
  version    bigint NOT NULL DEFAULT 1
);
