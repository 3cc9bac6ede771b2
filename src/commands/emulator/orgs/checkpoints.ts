import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {listCheckpoints} from '../../../services/emulator/orgs/index.js';
import {checkpointsText} from '../../../ui/checkpoints.js';

export default class EmulatorOrgsCheckpoints extends BaseCommand {
  static override summary = "List one org's checkpoints, oldest first";
  static override examples = [
    '<%= config.bin %> emulator orgs checkpoints org_0123456789abcdefghijklmn',
    '<%= config.bin %> emulator orgs checkpoints org_0123456789abcdefghijklmn --json',
  ];
  static override args = {org: Args.string({description: 'id of the org (org_…)', required: true})};
  static override flags = {'data-dir': dataDirFlag()};

  async run() {
    const {args, flags} = await this.parse(EmulatorOrgsCheckpoints);
    const data = await listCheckpoints({id: args.org, dataDir: flags['data-dir'], env: process.env});
    await this.show({data}, (list) => checkpointsText(list.data, args.org));
  }
}
