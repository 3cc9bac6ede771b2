import {Flags} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag, orgFlag} from '../../../lib/flags.js';
import {createSandbox} from '../../../services/emulator/sandboxes/create.js';
import {describeMove} from '../../../ui/trigger.js';

export default class EmulatorSandboxesCreate extends BaseCommand {
  static override summary = 'Create a sandbox in the emulator (it becomes ready and emits sandbox.ready)';
  static override examples = [
    '<%= config.bin %> emulator sandboxes create --name dev',
    '<%= config.bin %> emulator sandboxes create --expires-in 10m --json',
  ];
  static override flags = {
    name: Flags.string({description: 'name of the sandbox (default: a generated one)'}),
    'expires-in': Flags.string({
      description: 'expire after this long on the emulator clock',
      helpValue: 'DURATION',
    }),
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorSandboxesCreate);
    const {value: move, apiUrl} = await createSandbox({
      name: flags.name,
      expiresIn: flags['expires-in'],
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(move, (m) => `Created ${describeMove(m)} on the emulator at ${apiUrl}\n`);
  }
}
