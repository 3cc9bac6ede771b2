import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag} from '../lib/flags.js';
import {showOrg} from '../services/org.js';
import {renderOrg, terminalView} from '../ui/views.js';
import {readingFrom} from '../services/reading-from.js';

export default class Org extends BaseCommand {
  static override summary = 'Show the org the API key belongs to';
  static override examples = ['<%= config.bin %> org', '<%= config.bin %> org --json'];
  static override flags = {
    'api-url': apiUrlFlag(),
  };

  async run() {
    const {flags} = await this.parse(Org);
    const {client} = await this.session();
    await this.noteWhenShown(() =>
      readingFrom({env: process.env, apiUrl: client.apiUrl, apiUrlFlag: flags['api-url']}),
    );
    const org = await showOrg({client});
    await this.show(org, async (o, view) => renderOrg(o, await terminalView(view, client.serverNowMs())));
  }
}
