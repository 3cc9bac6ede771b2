import {openSession} from '../auth/session.js';
import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {showOrg} from '../services/org.js';
import {renderOrg, terminalView} from '../ui/views.js';

export default class Org extends BaseCommand {
  static override summary = 'Show the org the API key belongs to';
  static override examples = ['<%= config.bin %> org', '<%= config.bin %> org --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(Org);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    const org = await showOrg({client});
    if (!this.jsonEnabled())
      process.stdout.write(
        renderOrg(org, await terminalView(process.stdout, process.env, client.serverNowMs())),
      );
    return org;
  }
}
