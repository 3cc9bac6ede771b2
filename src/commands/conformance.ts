import {Flags} from '@oclif/core';
import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {checkDeployment} from '../services/conformance/index.js';
import {renderConformance} from '../ui/conformance.js';
import {ExitCode} from '../lib/exit-codes.js';

export default class Conformance extends BaseCommand {
  static override summary = "Check that a deployment's /v1 still matches the OpenAPI document of svc";
  static override description =
    'With the stored key (or SVC_API_KEY), read-only: each /v1 read, the 401 of a missing and of a wrong key, the 403 of each write, and last the 429 of repeated failed authentications (which locks this address out for up to a minute; --skip-rate-limit leaves it out). Against a running emulator its limiter is reset right after, so nothing waits on a 429; the report says what the run did to the rate limit. Every answer is checked for its status, the headers the document requires and its body. Exits 1 when a check fails.';
  static override examples = [
    '<%= config.bin %> conformance',
    '<%= config.bin %> conformance --api-url https://api.svc.invalid --json',
  ];
  static override flags = {
    'api-url': apiUrlFlag({
      description: 'the deployment to check (default: SVC_API_URL, then the stored login)',
    }),
    'skip-rate-limit': Flags.boolean({description: 'leave out the check that provokes a 429'}),
  };

  async run() {
    const {flags} = await this.parse(Conformance);
    const {credentials} = await this.session();
    const report = await checkDeployment({
      credentials,
      env: process.env,
      rateLimit: !flags['skip-rate-limit'],
    });
    // A verdict, not an error: the report is printed whole (JSON too), and the exit code says it failed.
    if (report.failed > 0) process.exitCode = ExitCode.error;
    await this.show(report, renderConformance);
  }
}
