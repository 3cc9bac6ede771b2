import {Flags} from '@oclif/core';
import {BaseCommand} from '../lib/base-command.js';
import {apiUrlFlag, dataDirFlag} from '../lib/flags.js';
import {openAccountPage} from '../services/open.js';

export default class Open extends BaseCommand {
  static override summary = 'Open the account page of the emulator serving the API address in use';
  static override description =
    'The address in use is --api-url, then SVC_API_URL, then the latest `svc login`. The page opens in the ' +
    'default browser; its address is printed on stdout either way, and only printed where no browser can be ' +
    'opened (not at a terminal, no graphical display) or with --print.';
  static override examples = ['<%= config.bin %> open', '<%= config.bin %> open --print'];
  static override flags = {
    print: Flags.boolean({description: 'print the address only; open no browser'}),
    'api-url': apiUrlFlag(),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {flags} = await this.parse(Open);
    const {stdin, stdout} = this.streams();
    const result = await openAccountPage({
      env: process.env,
      apiUrl: flags['api-url'],
      dataDir: flags['data-dir'],
      print: flags.print,
      interactive: Boolean(stdin.isTTY && stdout.isTTY),
    });
    await this.show(result, (r) => `${r.url}\n`);
    if (result.opened)
      this.note(`Opened the account page of the emulator at ${result.api_url} in your browser`);
    else if (result.reason) this.note(`No browser opened (${result.reason}): open the address above`);
  }
}
