import {Flags} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag} from '../../../lib/flags.js';
import {createOrg} from '../../../services/emulator/orgs/index.js';

export default class EmulatorOrgsCreate extends BaseCommand {
  static override summary = 'Create an empty org in the emulator (one per test file keeps them apart)';
  static override description =
    'Prints its id. Pass it as --org to `trigger`, `emulator keys create`, `emulator webhooks create`, `emulator sandboxes …` and `emulator clock`.';
  static override examples = [
    'ORG=$(<%= config.bin %> emulator orgs create --name checkout-tests)',
    '<%= config.bin %> emulator orgs create --name checkout-tests --json',
  ];
  static override flags = {
    name: Flags.string({description: 'name of the org', required: true}),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorOrgsCreate);
    const {value: org, apiUrl} = await createOrg({
      name: flags.name,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    // stdout is the id alone (ORG=$(svc emulator orgs create …)); which emulator made it goes to stderr.
    await this.show(org, (o) => `${o.id}\n`);
    this.note(`Created ${org.name} on the emulator at ${apiUrl}.`);
  }
}
