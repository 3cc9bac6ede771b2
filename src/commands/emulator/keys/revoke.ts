import {Args} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {revokeKey} from '../../../services/emulator/keys/revoke.js';

export default class EmulatorKeysRevoke extends BaseCommand {
  static override summary = 'Revoke an API key in the emulator; it fails from the very next request';
  static override examples = ['<%= config.bin %> emulator keys revoke key_0123456789abcdefghijklmn'];
  static override args = {id: Args.string({description: 'id of the key (key_…)', required: true})};
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorKeysRevoke);
    const {value: key, apiUrl} = await revokeKey({id: args.id, dataDir: flags['data-dir'], env: process.env});
    const at = `on the emulator at ${apiUrl}`;
    // Nothing done is a note for a person; stdout stays empty (the record still is the --json answer).
    if (key.already_revoked) this.note(`Nothing to do: ${key.name} (${key.id}) was already revoked ${at}.`);
    await this.show(key, (k) => (k.already_revoked ? '' : `Revoked ${k.name} (${k.id}) ${at}.\n`));
  }
}
