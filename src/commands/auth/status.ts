import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {painter, colorEnabled} from '../../lib/output.js';
import {authStatus} from '../../services/auth/status.js';
import {sanitize} from '../../ui/text.js';

const SOURCE_TEXT = {env: 'SVC_API_KEY', keychain: 'OS keychain', file: 'credentials file'} as const;

export default class AuthStatus extends BaseCommand {
  static override summary = 'Show which API key svc uses, where it comes from, and for which org';
  static override examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json'];
  static override flags = {
    'api-url': apiUrlFlag({
      description: 'API address to check (default: SVC_API_URL, then https://api.svc.dev)',
    }),
  };

  async run() {
    const {flags} = await this.parse(AuthStatus);
    const status = await authStatus({env: process.env, apiUrl: flags['api-url'], warn: (m) => this.warn(m)});
    if (!this.jsonEnabled()) {
      const paint = painter(colorEnabled(process.stdout));
      this.log(
        `${paint('green', '✓')} Logged in to ${sanitize(status.org.name)} (${sanitize(status.org.id)})`,
      );
      this.log(`  API:  ${status.api_url}`);
      this.log(`  Key:  ${status.key_prefix}… from ${SOURCE_TEXT[status.source]}`);
      for (const url of status.other_logins) this.log(`  Also stored: a key for ${url}`);
    }
    return status;
  }
}
