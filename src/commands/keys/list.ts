import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {accountPageOf} from '../../services/account-page.js';
import {listKeys} from '../../services/keys/list.js';
import {renderKeys, terminalView} from '../../ui/views.js';
import {readingFrom} from '../../services/reading-from.js';

export default class KeysList extends BaseCommand {
  static override summary = "List the org's API keys (name, prefix, status, expiry; never secrets)";
  static override examples = ['<%= config.bin %> keys list', '<%= config.bin %> keys list --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(KeysList);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({env: process.env, apiUrl: client.apiUrl, apiUrlFlag: flags['api-url']}),
    );
    const keys = await listKeys({client});
    await this.show({data: keys}, async ({data}, view) =>
      renderKeys(data, {
        ...(await terminalView(view, client.serverNowMs())),
        accountUrl: await accountPageOf(client),
      }),
    );
  }
}
