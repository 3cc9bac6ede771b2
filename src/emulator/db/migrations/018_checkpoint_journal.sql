-- A checkpoint kept as a mark in a journal instead of a copy (org-checkpoints.ts): while an org has such a
-- checkpoint, each row of it that a statement inserts, updates or deletes is written to journal_<table> first as it
-- was (the new row for an insert, which has no earlier one), with a number from one sequence. Taking the checkpoint
-- is writing its number; a rewind puts back, for each row changed since, the row as its first entry after that
-- number holds it, and deletes the rows that entry says were made since. Both cost what changed since the
-- checkpoint, not what the org holds. The emulator keeps checkpoints this way where one process writes (PGlite);
-- on a shared PostgreSQL they stay copies. A checkpoint kept as a copy has no number.
ALTER TABLE org_checkpoints ADD COLUMN journal_seq bigint;
CREATE INDEX org_checkpoints_journaled ON org_checkpoints (org_id, journal_seq) WHERE journal_seq IS NOT NULL;
CREATE SEQUENCE checkpoint_journal_seq;

-- For each table a checkpoint copies (those migration 017 made a checkpoint_<table> for): its journal (the entry's
-- number, the row's org, what was done: I, U or D, then every column of the table in its order, as
-- checkpoint_<table> has them; a later migration that adds a column to the table adds it here too), one trigger for
-- each kind of statement, and its part of svc_journal_unneeded below. Each is made from the text here with the
-- table's name in it, so that its statements are planned once. An attempt names no org: it is its delivery's, and
-- one deleted with its delivery (which is gone by then) is written with no org, and taken by the rewind of the org
-- whose journal holds that delivery's deletion. The triggers are made switched off: a database where no checkpoint
-- was ever kept in the journal (every shared PostgreSQL) pays nothing for them. The first such checkpoint switches
-- them on (org-checkpoints.ts), and on they stay, each statement then asking whether any org has one.
--
-- Entries no checkpoint needs go when a checkpoint goes (deleted, with its org, or made a copy): an org's entries
-- up to the number of its oldest checkpoint in the journal, all of them when it has none left, and those of
-- attempts with no org up to the oldest number of any org.
DO $journal$
DECLARE
  t text;
  op text;
  rows_of text;
  org_of text;
  kept text;
  unneeded text := '';
BEGIN
  FOR t IN SELECT substr(relname, length('checkpoint_') + 1) FROM pg_class
            WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace
              AND relname LIKE 'checkpoint\_%' ORDER BY relname LOOP
    EXECUTE format('CREATE TABLE journal_%1$s (journal_seq bigint NOT NULL, journal_org_id text,
                      journal_op "char" NOT NULL, LIKE %1$s)', t);
    EXECUTE format('CREATE INDEX journal_%1$s_of ON journal_%1$s (journal_org_id, journal_seq)', t);
    IF t = 'delivery_attempts' THEN
      rows_of := 'changed r LEFT JOIN deliveries d ON d.id = r.delivery_id';
      org_of := 'd.org_id';
      kept := 'd.id IS NULL OR d.org_id IN (SELECT c.org_id FROM org_checkpoints c WHERE c.journal_seq IS NOT NULL)';
    ELSE
      rows_of := 'changed r';
      org_of := 'r.org_id';
      kept := 'r.org_id IN (SELECT c.org_id FROM org_checkpoints c WHERE c.journal_seq IS NOT NULL)';
    END IF;
    FOREACH op IN ARRAY ARRAY['I', 'U', 'D'] LOOP
      EXECUTE format($fn$
        CREATE FUNCTION svc_journal_%1$s_%2$s() RETURNS trigger LANGUAGE plpgsql AS $body$
        BEGIN
          IF current_setting('svc.journal_off', true) = 'on'
             OR NOT EXISTS (SELECT 1 FROM org_checkpoints c WHERE c.journal_seq IS NOT NULL) THEN
            RETURN NULL;
          END IF;
          INSERT INTO journal_%1$s SELECT nextval('checkpoint_journal_seq'), %3$s, %2$L, r.*
            FROM %4$s WHERE %5$s;
          RETURN NULL;
        END $body$
      $fn$, t, op, org_of, rows_of, kept);
      EXECUTE format('CREATE TRIGGER journal_%1$s_%2$s AFTER %3$s ON %1$s REFERENCING %4$s TABLE AS changed
                        FOR EACH STATEMENT EXECUTE FUNCTION svc_journal_%1$s_%2$s()',
                     t, op,
                     CASE op WHEN 'I' THEN 'INSERT' WHEN 'U' THEN 'UPDATE' ELSE 'DELETE' END,
                     CASE op WHEN 'I' THEN 'NEW' ELSE 'OLD' END);
      EXECUTE format('ALTER TABLE %1$s DISABLE TRIGGER journal_%1$s_%2$s', t, op);
    END LOOP;
    unneeded := unneeded || format($sql$
      DELETE FROM journal_%1$s j
       WHERE j.journal_seq <= coalesce(
               (SELECT min(c.journal_seq) FROM org_checkpoints c
                 WHERE c.journal_seq IS NOT NULL AND (j.journal_org_id IS NULL OR c.org_id = j.journal_org_id)),
               9223372036854775807);$sql$, t);
  END LOOP;
  EXECUTE format($fn$
    CREATE FUNCTION svc_journal_unneeded() RETURNS trigger LANGUAGE plpgsql AS $body$
    BEGIN %1$s
      RETURN NULL;
    END $body$
  $fn$, unneeded);
END $journal$;

CREATE TRIGGER org_checkpoints_journal_unneeded AFTER DELETE OR UPDATE OF journal_seq ON org_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION svc_journal_unneeded();
