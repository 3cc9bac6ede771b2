import {Flags} from '@oclif/core';
import {DEFAULT_KEY_EXPIRY, KEY_EXPIRY_CHOICES, type KeyExpiryChoice} from '../../../definitions.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {currentSvcCommand} from '../../../lib/invocation.js';
import {dataDirFlag, orgFlag} from '../../../lib/flags.js';
import {createKey} from '../../../services/emulator/keys/create.js';
import {keyCreatedHint} from '../../../ui/emulator.js';

export default class EmulatorKeysCreate extends BaseCommand {
  static override summary =
    'Create an API key in the emulator (the account page stand-in); the secret is shown once';
  static override examples = [
    '<%= config.bin %> emulator keys create --name ci --expires 30',
    '<%= config.bin %> emulator keys create --name dev --json',
  ];
  static override flags = {
    name: Flags.string({description: 'name of the key', required: true}),
    expires: Flags.string({
      description: "days until it expires, or never (the default is the account page's: keys should expire)",
      options: [...KEY_EXPIRY_CHOICES],
      default: DEFAULT_KEY_EXPIRY,
    }),
    'created-by': Flags.string({description: 'who created it (an email address)', helpValue: 'EMAIL'}),
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorKeysCreate);
    const {key, apiUrl} = await createKey({
      name: flags.name,
      expires: flags.expires as KeyExpiryChoice,
      createdBy: flags['created-by'],
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    // Only the secret goes to stdout, so `KEY=$(svc emulator keys create --name x)` works; the rest is a hint.
    this.note(
      `Created ${key.name} (${key.id}), expires ${key.expires_at ?? 'never'}. The secret is shown once:`,
    );
    await this.show(key, (k) => `${k.secret}\n`);
    const svc = currentSvcCommand();
    this.note(keyCreatedHint({svc, apiUrl, name: flags.name, dataDir: flags['data-dir']}));
  }
}
