import {Flags} from '@oclif/core';
import {EVENT_TYPES, MAX_ENDPOINT_DESCRIPTION_LENGTH} from '../../../definitions.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {currentSvcCommand} from '../../../lib/invocation.js';
import {dataDirFlag, orgFlag} from '../../../lib/flags.js';
import {createWebhook} from '../../../services/emulator/webhooks/create.js';
import {webhookCreatedHint} from '../../../ui/emulator.js';

export default class EmulatorWebhooksCreate extends BaseCommand {
  static override summary = 'Add a webhook endpoint in the emulator; its signing secret is shown once';
  static override description =
    `Event types: ${EVENT_TYPES.join(', ')}. The URL must be https:// on a public host unless the emulator runs with --allow-local-endpoints.`;
  static override examples = [
    '<%= config.bin %> emulator webhooks create --url https://example.com/hooks --events sandbox.ready,sandbox.error',
  ];
  static override flags = {
    url: Flags.string({description: 'where events are posted', required: true}),
    events: Flags.string({description: 'comma-separated event types', required: true, helpValue: 'a,b'}),
    description: Flags.string({description: `a note, at most ${MAX_ENDPOINT_DESCRIPTION_LENGTH} characters`}),
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorWebhooksCreate);
    const {endpoint, apiUrl} = await createWebhook({
      url: flags.url,
      events: flags.events
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
      description: flags.description,
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    // Warnings go to stderr with --json too: stdout holds only the JSON document.
    for (const warning of endpoint.warnings) this.warn(warning, {evenWithJson: true});
    this.note(
      `Added ${endpoint.id} for ${endpoint.events.join(', ')} → ${endpoint.url} on the emulator at ${apiUrl}. The signing secret is shown once:`,
    );
    await this.show(endpoint, (e) => `${e.secret}\n`);
    this.note(
      webhookCreatedHint({
        svc: currentSvcCommand(),
        id: endpoint.id,
        event: endpoint.events[0] ?? 'sandbox.ready',
        dataDir: flags['data-dir'],
      }),
    );
  }
}
