import {Args, Flags} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {ExitCode} from '../../lib/exit-codes.js';
import {apiUrlFlag, dataDirFlag} from '../../lib/flags.js';
import {currentSvcCommand} from '../../lib/invocation.js';
import {checkWebhookId} from '../../services/webhooks/deliveries.js';
import {diagnoseEndpoints} from '../../services/webhooks/diagnose.js';
import {writeDiagnosisJunit} from '../../services/webhooks/diagnose-junit.js';
import {renderDiagnoseReport} from '../../ui/diagnosis.js';
import {readingFrom} from '../../services/reading-from.js';

export default class WebhooksDiagnose extends BaseCommand {
  static override summary =
    'Say why an endpoint’s deliveries fail: the receiver-side cause and the check that reproduces it';
  static override description =
    'Groups the failed attempts of each endpoint’s recent deliveries into issues, each with the cause on the ' +
    'receiver’s side that the attempts point to (another secret or a parsed body, its clock, work done before ' +
    'answering, a redirect, a body limit, an event type it refuses, nothing listening) and the ' +
    '`svc webhooks test-receiver` check that reproduces it. Every attempt is read where the API address is a ' +
    'running emulator’s; against the service, each delivery’s last answer. A healthy endpoint gets one line.\n\n' +
    'Exit 1 when there are issues, 0 otherwise.';
  static override examples = [
    '<%= config.bin %> webhooks diagnose',
    '<%= config.bin %> webhooks diagnose we_0123456789abcdefghijklmn --json',
    '<%= config.bin %> webhooks diagnose --junit diagnose.xml',
  ];
  static override args = {
    webhook_id: Args.string({description: 'endpoint id (we_…); every endpoint of the org when left out'}),
  };
  static override flags = {
    junit: Flags.string({
      description: 'also write the issues as JUnit XML to FILE (one failing test case per issue)',
      helpValue: 'FILE',
    }),
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(WebhooksDiagnose);
    // A malformed id is said before anything is read, whatever the credentials.
    if (args.webhook_id !== undefined) checkWebhookId(args.webhook_id);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({
        env: process.env,
        apiUrl: client.apiUrl,
        apiUrlFlag: flags['api-url'],
        dataDir: flags['data-dir'],
      }),
    );
    const report = await diagnoseEndpoints({
      client,
      webhookId: args.webhook_id,
      env: process.env,
      dataDir: flags['data-dir'],
    });
    if (flags.junit !== undefined) writeDiagnosisJunit(flags.junit, report);
    if (report.issues > 0) process.exitCode = ExitCode.error;
    await this.show(report, (r, view) => renderDiagnoseReport(r, view.paint, currentSvcCommand()));
  }
}
