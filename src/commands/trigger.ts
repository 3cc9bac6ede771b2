import {Args, Flags} from '@oclif/core';
import {EVENT_TYPES} from '../definitions.js';
import {BaseCommand} from '../lib/base-command.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {dataDirFlag} from '../lib/flags.js';
import {triggerEvent} from '../services/trigger.js';
import {describeMove, triggerHint} from '../ui/trigger.js';

export default class Trigger extends BaseCommand {
  static override summary = 'Emit one sandbox event in the running emulator';
  static override description =
    'Moves the sandbox to the state the event implies and delivers the event to every endpoint subscribed ' +
    'to it (and to `svc listen`). Without --sandbox a new sandbox is created for the event.';
  static override examples = [
    '<%= config.bin %> trigger sandbox.ready',
    '<%= config.bin %> trigger sandbox.stopped --sandbox sbx_… --last-error "the VM ran out of memory"',
    '<%= config.bin %> trigger sandbox.error --json',
  ];
  static override args = {
    type: Args.string({description: 'event type', required: true, options: [...EVENT_TYPES]}),
  };
  static override flags = {
    sandbox: Flags.string({
      description: 'sandbox the event is about (default: a new one)',
      helpValue: 'SBX_ID',
    }),
    'last-error': Flags.string({description: 'last_error carried by the sandbox', helpValue: 'TEXT'}),
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(Trigger);
    const {move, apiUrl} = await triggerEvent({
      type: args.type,
      sandboxId: flags.sandbox,
      lastError: flags['last-error'],
      dataDir: flags['data-dir'],
      env: process.env,
    });
    if (!this.jsonEnabled()) {
      this.log(`Triggered ${describeMove(move)} in the emulator at ${apiUrl}`);
      const hint = triggerHint(move, {svc: currentSvcCommand(), dataDir: flags['data-dir']});
      if (hint) this.logToStderr(hint);
    }
    return move;
  }
}
