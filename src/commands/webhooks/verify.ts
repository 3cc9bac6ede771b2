import {Flags} from '@oclif/core';
import {SIGNATURE_TOLERANCE_SECONDS} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {verifyWebhook, WEBHOOK_SECRET_ENV} from '../../services/webhooks/verify.js';

export default class WebhooksVerify extends BaseCommand {
  static override summary = 'Check a webhook delivery: its Svc-Signature against the raw body and the secret';
  static override description =
    'Reads the raw body from --payload-file or stdin, byte for byte, and verifies it the way a receiver must. ' +
    `Give the signing secret through ${WEBHOOK_SECRET_ENV} rather than --secret: a flag is visible in shell ` +
    'history and to other users in the process list.\n\nExit 0 when valid; 1 with the reason as the error code.';
  static override examples = [
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks verify --header "t=1767225600,v1=5f0c…" --payload-file body.json`,
    'cat body.json | <%= config.bin %> webhooks verify --header "$SIGNATURE" --json',
  ];
  static override flags = {
    secret: Flags.string({
      description: `Signing secret (whsec_…). Prefer the ${WEBHOOK_SECRET_ENV} environment variable.`,
      helpValue: 'SECRET',
    }),
    header: Flags.string({description: 'Value of the Svc-Signature header', required: true, helpValue: 'H'}),
    'payload-file': Flags.string({description: 'File with the raw body (default: stdin)', helpValue: 'FILE'}),
    tolerance: Flags.integer({
      description: 'Accepted clock difference in seconds',
      default: SIGNATURE_TOLERANCE_SECONDS,
      min: 0,
      helpValue: 'SECONDS',
    }),
  };

  async run() {
    const {flags} = await this.parse(WebhooksVerify);
    if (flags.secret !== undefined) {
      this.note(
        `Hint: --secret is visible in shell history and the process list; set ${WEBHOOK_SECRET_ENV}.`,
      );
    }
    const result = await verifyWebhook({
      secret: flags.secret,
      env: process.env,
      header: flags.header,
      payloadFile: flags['payload-file'],
      stdin: this.streams().stdin,
      toleranceSeconds: flags.tolerance,
    });
    await this.show(result, (r, {paint}) => {
      const age = r.age_seconds >= 0 ? `${r.age_seconds}s ago` : `${-r.age_seconds}s ahead`;
      return (
        `${paint('green', '✓')} Valid signature (t=${r.timestamp}, ${age})\n` +
        `  ${r.event_type} ${r.event_id}\n`
      );
    });
  }
}
