// `svc emulator export [--out FILE]`: the emulator's whole state as one snapshot document. It holds signing
// secrets in clear text, so a file is written owner-only (0600), whole or not at all.
import type {Snapshot} from '../../../schemas/snapshot.js';
import {SNAPSHOT_TABLES, type SnapshotTable} from '../../../schemas/snapshot.js';
import {type StateTargetOptions, withStateTarget} from './connect.js';

export interface ExportSummary {
  file: string;
  exported_at: string;
  rows: Record<SnapshotTable, number>;
}

/** The snapshot, and which emulator it came from (`the emulator at …`, `the stopped emulator in …`). */
export function exportState(options: StateTargetOptions): Promise<{snapshot: Snapshot; source: string}> {
  return withStateTarget(options, async (control, _running, source) => ({
    snapshot: await control.exportState(),
    source,
  }));
}

export function summarize(file: string, snapshot: Snapshot): ExportSummary {
  const rows = Object.fromEntries(SNAPSHOT_TABLES.map((t) => [t, snapshot[t].length])) as Record<
    SnapshotTable,
    number
  >;
  return {file, exported_at: snapshot.exported_at, rows};
}
