-- Each attempt names its delivery's org, with an index on it: an org's attempts are found by that index, not by
-- joining every attempt of every org to the org's deliveries. A checkpoint counts them, copies them and compares
-- them on a rewind; that join read the whole table, and took most of a checkpoint of an org of 10,000 deliveries.
ALTER TABLE delivery_attempts ADD COLUMN org_id text;
UPDATE delivery_attempts a SET org_id = d.org_id FROM deliveries d WHERE d.id = a.delivery_id;
ALTER TABLE delivery_attempts ALTER COLUMN org_id SET NOT NULL;
CREATE INDEX delivery_attempts_org ON delivery_attempts (org_id);

-- The emulator's own writes name the org; any other insert (a state loaded from a file) gets its delivery's. The
-- WHEN clause keeps the function out of the writes that name it.
CREATE FUNCTION svc_attempt_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.org_id := (SELECT d.org_id FROM deliveries d WHERE d.id = NEW.delivery_id);
  RETURN NEW;
END $$;
CREATE TRIGGER delivery_attempts_org BEFORE INSERT ON delivery_attempts
  FOR EACH ROW WHEN (NEW.org_id IS NULL) EXECUTE FUNCTION svc_attempt_org();

-- The checkpoint and journal tables hold every column of their table, this one last as it is there.
ALTER TABLE checkpoint_delivery_attempts ADD COLUMN org_id text;
UPDATE checkpoint_delivery_attempts c SET org_id = c.checkpoint_org_id;
ALTER TABLE journal_delivery_attempts ADD COLUMN org_id text;
UPDATE journal_delivery_attempts j SET org_id = d.org_id FROM deliveries d WHERE d.id = j.delivery_id;
UPDATE journal_delivery_attempts j SET org_id = j.journal_org_id WHERE j.org_id IS NULL;
