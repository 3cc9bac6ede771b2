import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag, orgFlag} from '../../../lib/flags.js';
import {listSandboxes} from '../../../services/emulator/sandboxes/list.js';
import {sanitize} from '../../../ui/text.js';

export default class EmulatorSandboxesList extends BaseCommand {
  static override summary = "List the emulator's sandboxes, newest first";
  static override examples = [
    '<%= config.bin %> emulator sandboxes list',
    '<%= config.bin %> emulator sandboxes list --json',
  ];
  static override flags = {
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {flags} = await this.parse(EmulatorSandboxesList);
    const {value: data, apiUrl} = await listSandboxes({
      dataDir: flags['data-dir'],
      org: flags.org,
      env: process.env,
    });
    if (data.length === 0)
      this.note(
        `No sandboxes yet on the emulator at ${apiUrl}. Create one with \`svc emulator sandboxes create\`.`,
      );
    else this.note(`Sandboxes on the emulator at ${apiUrl}:`);
    await this.show({data}, (list) =>
      list.data
        .map((s) => {
          const extra = [
            s.last_error ? `last_error: ${sanitize(s.last_error)}` : '',
            s.expires_at ? `expires ${s.expires_at}` : '',
          ]
            .filter(Boolean)
            .join(', ');
          return `${s.id}  ${sanitize(s.name)}  ${s.status} (desired ${s.desired_state})${extra ? `  ${extra}` : ''}\n`;
        })
        .join(''),
    );
  }
}
