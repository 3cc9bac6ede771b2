import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {checkpointOrg} from '../../../services/emulator/orgs/index.js';
import {checkpointSummary} from '../../../ui/checkpoints.js';

export default class EmulatorOrgsCheckpoint extends BaseCommand {
  static override summary = "Save one org's rows, its clock and its pending schedule under a name";
  static override description =
    "Keys, endpoints, sandboxes and links, events, deliveries and their attempts, and the org's time. `svc emulator orgs rewind ORG NAME` puts the org back exactly so; no other org is touched.";
  static override examples = [
    '<%= config.bin %> emulator orgs checkpoint org_0123456789abcdefghijklmn after-first-attempt',
  ];
  static override args = {
    org: Args.string({description: 'id of the org (org_…)', required: true}),
    name: Args.string({description: 'name of the checkpoint, unique in the org', required: true}),
  };
  static override flags = {'data-dir': dataDirFlag()};

  async run() {
    const {args, flags} = await this.parse(EmulatorOrgsCheckpoint);
    const saved = await checkpointOrg({
      id: args.org,
      name: args.name,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(saved, (c) => `Saved ${c.name} of ${c.org_id}: ${checkpointSummary(c)}.\n`);
  }
}
