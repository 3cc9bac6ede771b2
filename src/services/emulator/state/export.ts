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

export function exportState(options: StateTargetOptions): Promise<Snapshot> {
  return withStateTarget(options, (control) => control.exportState());
}

export function summarize(file: string, snapshot: Snapshot): ExportSummary {
  const rows = Object.fromEntries(SNAPSHOT_TABLES.map((t) => [t, snapshot[t].length])) as Record<
    SnapshotTable,
    number
  >;
  return {file, exported_at: snapshot.exported_at, rows};
}
