import {openSession} from '../../auth/session.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {listWebhooks} from '../../services/webhooks/list.js';
import {renderWebhooks, terminalView} from '../../ui/views.js';

export default class WebhooksList extends BaseCommand {
  static override summary = "List the org's webhook endpoints";
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(WebhooksList);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    const endpoints = await listWebhooks({client});
    if (!this.jsonEnabled())
      process.stdout.write(
        renderWebhooks(endpoints, terminalView(process.stdout, process.env, client.serverNowMs())),
      );
    return {data: endpoints};
  }
}
