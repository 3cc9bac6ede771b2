import {Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {emulatorOpenApi} from '../../services/emulator/openapi.js';

export default class EmulatorOpenapi extends BaseCommand {
  static override summary = 'Print the OpenAPI 3.1 document of /v1 and of the webhooks';
  static override description =
    'Generated from the schemas svc itself uses: every /v1 path with its answers and headers, the bearer scheme, and one webhook per event type. A running emulator serves the same document at /_emulator/openapi.json.';
  static override examples = [
    '<%= config.bin %> emulator openapi > openapi.json',
    '<%= config.bin %> emulator openapi --server-url https://api.svc.invalid',
  ];
  static override flags = {
    'server-url': Flags.string({
      description:
        'the address the document names for /v1 (default: the emulator default, http://127.0.0.1:4010)',
      helpValue: 'URL',
    }),
  };

  async run() {
    const {flags} = await this.parse(EmulatorOpenapi);
    const document = emulatorOpenApi({serverUrl: flags['server-url']});
    await this.show(document, (d) => `${JSON.stringify(d, null, 2)}\n`);
  }
}
