import {openSession} from '../../auth/session.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {listKeys} from '../../services/keys/list.js';
import {renderKeys, terminalView} from '../../ui/views.js';

export default class KeysList extends BaseCommand {
  static override summary = "List the org's API keys (name, prefix, status, expiry; never secrets)";
  static override examples = ['<%= config.bin %> keys list', '<%= config.bin %> keys list --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(KeysList);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    const keys = await listKeys({client});
    if (!this.jsonEnabled())
      process.stdout.write(
        renderKeys(keys, {
          ...(await terminalView(process.stdout, process.env, client.serverNowMs())),
          accountUrl: (await import('@svc/client')).accountUrlFor(client.apiUrl),
        }),
      );
    return {data: keys};
  }
}
