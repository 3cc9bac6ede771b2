import {BaseCommand} from '../lib/base-command.js';
import {renderVersion} from '../ui/version.js';

export default class Version extends BaseCommand {
  static override summary = 'Show the version of svc, its platform and Node.js';
  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --json'];

  async run() {
    await this.parse(Version);
    const info = {
      version: this.config.version,
      platform: process.platform,
      arch: process.arch,
      node: process.versions.node,
    };
    // The same line as `svc --version`, which scripts already parse.
    await this.show(info, (i) => `${renderVersion(this.config.bin, i)}\n`);
  }
}
