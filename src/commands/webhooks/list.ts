import {openSession} from '../../auth/session.js';
import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {listWebhooks} from '../../services/webhooks/list.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {renderWebhooks, terminalView, webhooksListHint} from '../../ui/views.js';

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
    if (!this.jsonEnabled()) {
      const view = {
        ...(await terminalView(process.stdout, process.env, client.serverNowMs())),
        accountUrl: (await import('@svc/client')).accountUrlFor(client.apiUrl),
      };
      process.stdout.write(renderWebhooks(endpoints, view));
      const hint = webhooksListHint(endpoints, currentSvcCommand(), flags['api-url']);
      if (hint) this.logToStderr(hint);
    }
    return {data: endpoints};
  }
}
