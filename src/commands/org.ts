import {Flags} from '@oclif/core';
import {openSession} from '../auth/session.js';
import {BaseCommand} from '../lib/base-command.js';
import {showOrg} from '../services/org.js';
import {renderOrg, terminalView} from '../ui/views.js';

export default class Org extends BaseCommand {
  static override summary = 'Show the org the API key belongs to';
  static override examples = ['<%= config.bin %> org', '<%= config.bin %> org --json'];
  static override flags = {
    'api-url': Flags.string({
      description: 'API address (default: SVC_API_URL, then https://api.svc.dev)',
      helpValue: 'URL',
    }),
  };

  async run() {
    const {flags} = await this.parse(Org);
    const {client} = await openSession({env: process.env, flags: {apiUrl: flags['api-url']}});
    const org = await showOrg({client});
    if (!this.jsonEnabled())
      process.stdout.write(renderOrg(org, await terminalView(process.stdout, process.env)));
    return org;
  }
}
