import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {rewindOrg} from '../../../services/emulator/orgs/index.js';
import {rewoundText} from '../../../ui/checkpoints.js';

export default class EmulatorOrgsRewind extends BaseCommand {
  static override summary = 'Put one org back exactly as a checkpoint saved it';
  static override description =
    "Its rows and next attempts as saved, and its clock back to the checkpoint's time on a manual clock; attempts in flight for the org are cancelled first. Other orgs never notice. The checkpoint stays, to rewind to again.";
  static override examples = [
    '<%= config.bin %> emulator orgs rewind org_0123456789abcdefghijklmn after-first-attempt',
  ];
  static override args = {
    org: Args.string({description: 'id of the org (org_…)', required: true}),
    name: Args.string({description: 'name of the checkpoint', required: true}),
  };
  static override flags = {'data-dir': dataDirFlag()};

  async run() {
    const {args, flags} = await this.parse(EmulatorOrgsRewind);
    const rewound = await rewindOrg({
      id: args.org,
      name: args.name,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(rewound, rewoundText);
  }
}
