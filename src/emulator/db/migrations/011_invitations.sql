-- Invitations are offers: pending until the invited person accepts them on the account page, withdrawn by the
-- owner or declined by the invitee. A sign-in lands in the org the person last looked at.

CREATE TABLE invitations (
  org_id      text NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
  person_id   text NOT NULL REFERENCES persons (id) ON DELETE CASCADE,
  invited_by  text REFERENCES persons (id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (org_id, person_id)
);
CREATE INDEX invitations_person ON invitations (person_id);

ALTER TABLE persons ADD COLUMN last_org_id text REFERENCES orgs (id) ON DELETE SET NULL;
