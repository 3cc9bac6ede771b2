import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {logout} from '../services/logout.js';
import {loggedOut} from '../ui/auth.js';

export default class Logout extends BaseCommand {
  static override summary = 'Forget the stored API key for an address (does not revoke it)';
  static override examples = [
    '<%= config.bin %> logout',
    '<%= config.bin %> logout --api-url http://127.0.0.1:4010',
  ];
  static override flags = {
    'api-url': apiUrlFlag({
      description:
        'API address to log out of (default: SVC_API_URL, then the address of the latest svc login)',
    }),
  };

  async run() {
    const {flags} = await this.parse(Logout);
    const result = await logout({env: process.env, apiUrl: flags['api-url']});
    // A person reads what happened on stderr; stdout holds nothing but the --json answer.
    for (const line of loggedOut(result)) this.note(line);
    await this.show(result, () => '');
  }
}
