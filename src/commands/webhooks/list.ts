import {Flags} from '@oclif/core';
import {openSession} from '../../auth/session.js';
import {BaseCommand} from '../../lib/base-command.js';
import {listWebhooks} from '../../services/webhooks/list.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {renderWebhooks, terminalView, webhooksListHint} from '../../ui/views.js';

export default class WebhooksList extends BaseCommand {
  static override summary = "List the org's webhook endpoints";
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --json'];
  static override flags = {
    'api-url': Flags.string({
      description: 'API address (default: SVC_API_URL, then https://api.svc.dev)',
      helpValue: 'URL',
    }),
  };

  async run() {
    const {flags} = await this.parse(WebhooksList);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    const endpoints = await listWebhooks({client});
    if (!this.jsonEnabled()) {
      process.stdout.write(renderWebhooks(endpoints, await terminalView(process.stdout, process.env)));
      const hint = webhooksListHint(endpoints, currentSvcCommand(), flags['api-url']);
      if (hint) this.logToStderr(hint);
    }
    return {data: endpoints};
  }
}
