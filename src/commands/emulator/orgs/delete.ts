import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {deleteOrg} from '../../../services/emulator/orgs/index.js';

export default class EmulatorOrgsDelete extends BaseCommand {
  static override summary = 'Delete one org and everything of it (the default org can only be reset)';
  static override examples = ['<%= config.bin %> emulator orgs delete org_0123456789abcdefghijklmn'];
  static override args = {id: Args.string({description: 'id of the org (org_…)', required: true})};
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorOrgsDelete);
    const result = await deleteOrg({id: args.id, dataDir: flags['data-dir'], env: process.env});
    await this.show(result, (r) => `Deleted ${r.org_id}.\n`);
  }
}
