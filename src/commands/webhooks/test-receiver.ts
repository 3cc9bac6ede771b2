import {Args, Flags} from '@oclif/core';
import {
  BURST_CHECK,
  DELIVERY_TIMEOUT_MS,
  RACE_CHECK,
  SIGNATURE_TOLERANCE_SECONDS,
} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {withOptionalValue} from '../../lib/optional-flag-value.js';
import {writeJunitReport} from '../../services/webhooks/receiver-junit.js';
import {FUTURE_CHECK_IDS, RECEIVER_CHECK_IDS, testReceiver} from '../../services/webhooks/test-receiver.js';
import {WEBHOOK_SECRET_ENV} from '../../services/webhooks/verify.js';
import {renderLoadDetails} from '../../ui/load-report.js';
import {renderDiagnosis, renderSkipped, renderSummary, renderVerdict} from '../../ui/receiver-report.js';
import type {CheckVerdict} from '../../services/webhooks/test-receiver.js';

export default class WebhooksTestReceiver extends BaseCommand {
  static override summary = 'Grade a running webhook receiver against every duty the spec puts on it';
  static override description =
    'Sends a battery of deliveries, each signed with the signing secret: valid ones, tampered bodies and ' +
    `headers, timestamps around the ${SIGNATURE_TOLERANCE_SECONDS} s tolerance on both sides, rotation, duplicates, events out of order ` +
    `and a large event, and grades each answer as the service would (2xx within ${DELIVERY_TIMEOUT_MS / 1000} s, no redirect). ` +
    'A receiver that cannot be reached, or that refuses every correctly signed delivery (most likely it ' +
    'verifies with another secret), is said so once, not check by check. ' +
    `Give the secret through ${WEBHOOK_SECRET_ENV} rather than --secret.\n\n` +
    `Checks: ${RECEIVER_CHECK_IDS.join(', ')}.\n\n` +
    `--future runs only the deliveries a later version of the service may send (${FUTURE_CHECK_IDS.join(', ')}); ` +
    'the default run includes them. --junit FILE also writes the verdicts as JUnit XML for CI (owner-only).' +
    `\n\n--race sends one event as N attempts at once, ${RACE_CHECK.rounds} times; with --probe it sees a side effect ` +
    'applied twice (docs/webhooks.md: the probe contract). --burst sends deliveries on a fixed schedule and reports ' +
    `p50/p99/max answer times against the ${DELIVERY_TIMEOUT_MS / 1000} s budget ("slow ack" from a p99 of half of it). ` +
    'Both run after the other checks, once the valid delivery passed.' +
    '\n\nExit 0 only when every check passes.';
  static override examples = [
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks test-receiver http://127.0.0.1:3000/webhooks`,
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks test-receiver http://127.0.0.1:3000/webhooks --only future-301,duplicate --json`,
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks test-receiver http://127.0.0.1:3000/webhooks --future --junit receiver.xml`,
    `${WEBHOOK_SECRET_ENV}=whsec_… <%= config.bin %> webhooks test-receiver http://127.0.0.1:3000/webhooks --only valid --race --probe http://127.0.0.1:3000/svc-probe --burst 50/s:20s`,
  ];
  static override args = {
    url: Args.string({description: 'the receiver to test (http:// or https://)', required: true}),
  };
  static override flags = {
    secret: Flags.string({
      description: `signing secret (whsec_…). Prefer the ${WEBHOOK_SECRET_ENV} environment variable.`,
      helpValue: 'SECRET',
    }),
    only: Flags.string({
      description: 'run only these checks (comma-separated; valid always runs first)',
      helpValue: 'CHECK,…',
      multiple: true,
    }),
    future: Flags.boolean({
      description:
        'run the deliveries a later service may send: added fields, a new event type, new values, …',
    }),
    junit: Flags.string({
      description: 'also write the verdicts as JUnit XML to FILE (one test case per check)',
      helpValue: 'FILE',
    }),
    race: Flags.integer({
      description: `also send one event as N attempts at once (default ${RACE_CHECK.defaultAttempts}), ${RACE_CHECK.rounds} times, to catch a dedupe that lets both through`,
      helpValue: '[N]',
    }),
    probe: Flags.string({
      description:
        'with --race: GET URL?event_id=… answers {"applied": <count>}, so a side effect run twice is seen',
      helpValue: 'URL',
    }),
    burst: Flags.string({
      description: `also send deliveries at RATE (N/s, at most ${BURST_CHECK.maxRatePerSecond}) for DURATION (default ${BURST_CHECK.defaultDurationMs / 1000}s) and report p50/p99/max answer times`,
      helpValue: 'RATE[:DURATION]',
    }),
  };

  async run() {
    const argv = withOptionalValue(this.argv, '--race', String(RACE_CHECK.defaultAttempts));
    const {args, flags} = await this.parse(WebhooksTestReceiver, argv);
    if (flags.secret !== undefined) {
      this.note(
        `Hint: --secret is visible in shell history and the process list; set ${WEBHOOK_SECRET_ENV}.`,
      );
    }
    const {paint} = this.textView();
    // Verdicts print as they are judged (as the items of a stream, text only: --json gives the report whole);
    // the skipped ones wait, to be said once per reason.
    const skipped: CheckVerdict[] = [];
    const onVerdict = (verdict: CheckVerdict) => {
      if (verdict.status === 'skip') skipped.push(verdict);
      else this.say(`${renderVerdict(verdict, paint)}\n`);
    };
    const report = await testReceiver({
      url: args.url,
      secret: flags.secret,
      env: process.env,
      only: flags.only,
      future: flags.future,
      race: flags.race,
      probe: flags.probe,
      burst: flags.burst,
      onVerdict: this.jsonEnabled() ? undefined : onVerdict,
    });
    if (flags.junit !== undefined) writeJunitReport(flags.junit, report);
    if (report.failed > 0 || report.skipped > 0) process.exitCode = ExitCode.error;
    await this.show(report, (r) => {
      const diagnosis = renderDiagnosis(r);
      return [
        ...renderSkipped(skipped, paint),
        ...renderLoadDetails(r),
        ...(diagnosis ? [diagnosis] : []),
        renderSummary(r, paint),
      ]
        .map((line) => `${line}\n`)
        .join('');
    });
  }
}
