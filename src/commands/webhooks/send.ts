import {Args, Flags} from '@oclif/core';
import {DELIVERY_TIMEOUT_MS, EVENT_TYPES, RESPONSE_BODY_LIMIT_BYTES} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {DEFAULT_SEND_TYPE, sendWebhook} from '../../services/webhooks/send.js';
import {WEBHOOK_SECRET_ENV} from '../../services/webhooks/verify.js';
import {renderSendResult, sendHint} from '../../ui/webhooks-send.js';

export default class WebhooksSend extends BaseCommand {
  static override summary = 'Sign a body and post it to a receiver as one delivery of the service';
  static override description =
    'Posts a sample event of --type (or your own body, byte for byte) with every Svc-* header and a ' +
    'signature made with the signing secret, without following redirects, and prints the status, the time ' +
    `and the first ${RESPONSE_BODY_LIMIT_BYTES / 1024} kB of the answer. Give the secret through ${WEBHOOK_SECRET_ENV} rather than --secret: ` +
    'a flag is visible in shell history and the process list.\n\n' +
    `Exit 0 when the receiver answered 2xx within ${DELIVERY_TIMEOUT_MS / 1000} s, 1 otherwise (with the same output).`;
  static override examples = [
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks send http://127.0.0.1:3000/webhooks`,
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks send http://127.0.0.1:3000/webhooks --type sandbox.error --json`,
    `cat event.json | ${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks send https://hooks.example.com/svc --data - --timestamp 1767225600`,
  ];
  static override args = {
    url: Args.string({description: 'the receiver to post to (http:// or https://)', required: true}),
  };
  static override flags = {
    secret: Flags.string({
      description: `signing secret (whsec_…). Prefer the ${WEBHOOK_SECRET_ENV} environment variable.`,
      helpValue: 'SECRET',
    }),
    type: Flags.string({
      description: `type of the sample event (default ${DEFAULT_SEND_TYPE}); a body of your own names its own`,
      options: [...EVENT_TYPES],
    }),
    data: Flags.string({
      description: 'sign and send this file, byte for byte, or - for stdin',
      helpValue: 'FILE|-',
    }),
    timestamp: Flags.string({
      description: "the signature's t: Unix seconds or an ISO 8601 time (default: now)",
      helpValue: 'T',
    }),
  };

  async run() {
    const {args, flags} = await this.parse(WebhooksSend);
    if (flags.secret !== undefined) {
      this.note(
        `Hint: --secret is visible in shell history and the process list; set ${WEBHOOK_SECRET_ENV}.`,
      );
    }
    const result = await sendWebhook({
      url: args.url,
      secret: flags.secret,
      env: process.env,
      type: flags.type,
      data: flags.data,
      stdin: this.streams().stdin,
      timestamp: flags.timestamp,
    });
    if (!result.accepted) process.exitCode = ExitCode.error;
    await this.show(result, (r, view) => `${renderSendResult(r, view.paint)}\n`);
    const hint = sendHint(result);
    if (hint) this.note(hint);
  }
}
