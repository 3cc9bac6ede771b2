import {Flags} from '@oclif/core';
import {AUTH_FAILURE_LIMIT} from '../../../definitions.js';
import {BaseCommand} from '../../../lib/base-command.js';
import {resetLimiter} from '../../../services/emulator/limiter/reset.js';

export default class EmulatorLimiterReset extends BaseCommand {
  static override summary = "Forget every address's failed authentications, so nothing waits on a 429";
  static override description =
    'Failed API keys (on /v1) and failed admin tokens (on the control surface) are counted per address; ' +
    `after ${AUTH_FAILURE_LIMIT.maxFailures} within ${AUTH_FAILURE_LIMIT.windowMs / 1000} seconds the address gets 429 until that window ends. Tests that assert 401s can ` +
    'run this between cases.';
  static override examples = ['<%= config.bin %> emulator limiter reset'];
  static override flags = {
    'data-dir': Flags.string({
      description: 'data dir of the emulator (default: SVC_EMULATOR_DATA_DIR, then the user data dir)',
      helpValue: 'DIR',
    }),
  };

  async run() {
    const {flags} = await this.parse(EmulatorLimiterReset);
    const result = await resetLimiter({dataDir: flags['data-dir'], env: process.env});
    await this.show(
      result,
      (r) => `Failed-authentication counts cleared for every address by the emulator at ${r.api_url}.\n`,
    );
  }
}
