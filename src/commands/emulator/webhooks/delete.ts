import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {deleteWebhook} from '../../../services/emulator/webhooks/delete.js';

export default class EmulatorWebhooksDelete extends BaseCommand {
  static override summary = 'Delete a webhook endpoint in the emulator';
  static override examples = ['<%= config.bin %> emulator webhooks delete we_0123456789abcdefghijklmn'];
  static override args = {id: Args.string({description: 'id of the endpoint (we_…)', required: true})};
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorWebhooksDelete);
    const {value: result, apiUrl} = await deleteWebhook({
      id: args.id,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(result, (r) => `Deleted ${r.id} on the emulator at ${apiUrl}.\n`);
  }
}
