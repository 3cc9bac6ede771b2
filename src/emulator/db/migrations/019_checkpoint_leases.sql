-- Whether any of the org's deliveries was held under a lease when a checkpoint was taken into the journal. A
-- checkpoint keeps no lease (a lease is the state of the worker holding it), so a rewind hands back every delivery
-- of the org held then and held still. A checkpoint taken while none was held needs no such pass over the org's
-- deliveries: each lease taken since is a change the journal holds, which the rewind puts back without its lease.
-- NULL (a copy, or a checkpoint taken before this column) counts as held.
ALTER TABLE org_checkpoints ADD COLUMN leases_held boolean;
