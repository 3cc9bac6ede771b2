import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {accountPageOf} from '../../services/account-page.js';
import {listWebhooks} from '../../services/webhooks/list.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {renderWebhooks, terminalView, webhooksListHint} from '../../ui/views.js';
import {readingFrom} from '../../services/reading-from.js';

export default class WebhooksList extends BaseCommand {
  static override summary = "List the org's webhook endpoints";
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(WebhooksList);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({env: process.env, apiUrl: client.apiUrl, apiUrlFlag: flags['api-url']}),
    );
    const endpoints = await listWebhooks({client});
    await this.show({data: endpoints}, async ({data}, view) =>
      renderWebhooks(data, {
        ...(await terminalView(view, client.serverNowMs())),
        accountUrl: await accountPageOf(client),
      }),
    );
    const hint = webhooksListHint(endpoints, currentSvcCommand(), flags['api-url']);
    if (hint) this.note(hint);
  }
}
