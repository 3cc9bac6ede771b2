import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {resetOrg} from '../../../services/emulator/orgs/index.js';

export default class EmulatorOrgsReset extends BaseCommand {
  static override summary =
    "Empty one org: its keys, endpoints, sandboxes, links, events and deliveries; its clock follows the emulator's again";
  static override description = 'The org, its name and its people stay. Other orgs never notice.';
  static override examples = ['<%= config.bin %> emulator orgs reset org_0123456789abcdefghijklmn'];
  static override args = {id: Args.string({description: 'id of the org (org_…)', required: true})};
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorOrgsReset);
    const result = await resetOrg({id: args.id, dataDir: flags['data-dir'], env: process.env});
    await this.show(result, (r) => `Emptied ${r.org_id}.\n`);
  }
}
