import {Args, Flags} from '@oclif/core';
import {
  MAX_SANDBOX_PORT,
  MIN_SANDBOX_PORT,
  SANDBOX_LINK_KINDS,
  type SandboxLinkKind,
} from '../../../../definitions.js';
import {BaseCommand} from '../../../../lib/base-command.js';
import {dataDirFlag} from '../../../../lib/flags.js';
import {currentSvcCommand} from '../../../../lib/invocation.js';
import {createLink} from '../../../../services/emulator/sandboxes/links/create.js';
import {linkCreatedHint} from '../../../../ui/emulator.js';

export default class EmulatorSandboxesLinksCreate extends BaseCommand {
  static override summary =
    'Open a port session, desktop link or browser URL onto a running sandbox on behalf of a key; the URL is shown once';
  static override description =
    'A port session forwards HTTP to the port on this machine (the emulator plays the sandbox here). Every link ' +
    'stops on its next request once the key that made it is revoked or expires, or the sandbox stops.';
  static override examples = [
    '<%= config.bin %> emulator sandboxes links create sbx_… --kind port --port 3000 --key key_…',
    '<%= config.bin %> emulator sandboxes links create sbx_… --kind desktop --key key_… --json',
  ];
  static override args = {
    sandbox: Args.string({description: 'sandbox id', required: true}),
  };
  static override flags = {
    kind: Flags.string({
      description: 'what the link opens',
      required: true,
      options: [...SANDBOX_LINK_KINDS],
    }),
    key: Flags.string({
      description: 'id of the API key that makes it (key_…), never its secret',
      required: true,
    }),
    port: Flags.integer({
      description: 'the sandbox port a port session forwards to',
      min: MIN_SANDBOX_PORT,
      max: MAX_SANDBOX_PORT,
    }),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorSandboxesLinksCreate);
    const {value: link, apiUrl} = await createLink({
      sandboxId: args.sandbox,
      kind: flags.kind as SandboxLinkKind,
      keyId: flags.key,
      port: flags.port,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    // Only the URL goes to stdout, so `URL=$(svc emulator sandboxes links create …)` works.
    await this.show(link, (l) => `${l.url}\n`);
    this.note(`On the emulator at ${apiUrl}:`);
    this.note(linkCreatedHint({svc: currentSvcCommand(), link, dataDir: flags['data-dir']}));
  }
}
