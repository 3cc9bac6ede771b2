import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {databaseUrlFlag, dataDirFlag} from '../../lib/flags.js';
import {exportState, summarize} from '../../services/emulator/state/export.js';
import {protectStdoutFile, writeSnapshotFile} from '../../services/emulator/state/snapshot-file.js';
import {renderExport} from '../../ui/state.js';

export default class EmulatorExport extends BaseCommand {
  static override summary = "Save the emulator's whole state as one snapshot file (JSON, owner-only)";
  static override description =
    'Orgs, people, keys (as hashes), endpoints with their signing secrets, sandboxes, events, deliveries with their attempts, and the clock. Load it again with `svc emulator import FILE` or `svc emulator start --import FILE`, on PGlite or PostgreSQL. Works on a running emulator or on the data dir (or --database-url) of a stopped one. Without --out the document goes to stdout (a file it is redirected to is made owner-only).';
  static override examples = [
    '<%= config.bin %> emulator export --out state.json',
    '<%= config.bin %> emulator export --out state.json --json',
  ];
  static override flags = {
    out: Flags.string({
      description: 'write the snapshot to this file (mode 0600) instead of stdout',
      helpValue: 'FILE',
    }),
    'data-dir': dataDirFlag(),
    'database-url': databaseUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorExport);
    // Refused before anything is read: the snapshot holds signing secrets.
    if (!flags.out) protectStdoutFile();
    const {snapshot, source} = await exportState({
      dataDir: flags['data-dir'],
      databaseUrl: flags['database-url'],
      env: process.env,
      log: (line) => this.note(line),
    });
    if (!flags.out) {
      // The document is the result, with or without --json.
      this.say(`${JSON.stringify(snapshot, null, 2)}\n`);
      this.note(`Exported the state of ${source}.`);
      if (this.streams().stdout.isTTY) this.note('This snapshot holds signing secrets: keep it private.');
      return;
    }
    const out = flags.out;
    await writeSnapshotFile(out, snapshot);
    await this.show(summarize(out, snapshot), (summary) => renderExport(out, summary.rows, source));
  }
}
