import {BaseCommand} from '../../lib/base-command.js';
import {apiUrlFlag} from '../../lib/flags.js';
import {authStatus} from '../../services/auth/status.js';
import {renderAuthStatus} from '../../ui/auth.js';

export default class AuthStatus extends BaseCommand {
  static override summary = 'Show which API key svc uses, where it comes from, and for which org';
  static override examples = ['<%= config.bin %> auth status', '<%= config.bin %> auth status --json'];
  static override flags = {
    'api-url': apiUrlFlag({
      description: 'API address to check (default: SVC_API_URL, then the address of the latest svc login)',
    }),
  };

  async run() {
    await this.parse(AuthStatus);
    const status = await authStatus({
      session: await this.session({warnings: true}),
      env: process.env,
      warn: (m) => this.warn(m),
    });
    await this.show(status, (s, view) => renderAuthStatus(s, view.paint));
  }
}
