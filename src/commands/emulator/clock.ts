import {Args} from '@oclif/core';
import {BaseCommand} from '../../lib/base-command.js';
import {dataDirFlag, orgFlag} from '../../lib/flags.js';
import {emulatorClock} from '../../services/emulator/clock.js';

export default class EmulatorClock extends BaseCommand {
  static override summary = "Show the emulator's time, or move a manual clock";
  static override description =
    'Moving time needs an emulator started with --clock manual. DURATION: 90s, 10m, 3h, 31d, 1h30m.';
  static override examples = [
    '<%= config.bin %> emulator clock',
    '<%= config.bin %> emulator clock advance 10m',
    '<%= config.bin %> emulator clock set 2030-01-01T00:00:00Z',
    '<%= config.bin %> emulator clock advance 30s --org org_…',
  ];
  static override args = {
    action: Args.string({description: 'what to do', options: ['advance', 'set']}),
    value: Args.string({description: 'DURATION for advance, ISO8601 time for set'}),
  };
  static override flags = {
    'data-dir': dataDirFlag(),
    org: orgFlag({
      description:
        'org whose own clock to show or move (other orgs never notice); default: the emulator clock',
    }),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorClock);
    const {state, apiUrl} = await emulatorClock({
      action: args.action as 'advance' | 'set' | undefined,
      value: args.value,
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(state, (s) => {
      const whose =
        'org_id' in s ? `of ${s.org_id}${s.own ? ' (its own)' : ''} in the emulator` : 'of the emulator';
      return `${s.now} (${s.mode} clock ${whose} at ${apiUrl})\n`;
    });
  }
}
