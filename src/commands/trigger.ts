import {Args, Flags} from '@oclif/core';
import {EVENT_TYPES} from '../definitions.js';
import {BaseCommand} from '../lib/base-command.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {dataDirFlag, orgFlag} from '../lib/flags.js';
import {triggerEvent} from '../services/trigger.js';
import {describeMove, triggerHint} from '../ui/trigger.js';

export default class Trigger extends BaseCommand {
  static override summary = 'Emit one sandbox event in the running emulator';
  static override description =
    'Moves the sandbox to the state the event implies and delivers the event to every endpoint subscribed ' +
    'to it (and to `svc listen`). Without --sandbox a new sandbox is created for the event.\n\n' +
    '--set PATH=VALUE shapes the delivered body: PATH is a dotted path in the event (data.sandbox.name), ' +
    'VALUE a JSON literal when it parses as one (42, true, null, "text", {"a": 1}), else text; null removes an ' +
    "optional field. The shaped event is checked against the event type's schema (svc events schema TYPE) " +
    'and the rules the service keeps in those fields: expires_at a real ISO 8601 time, status the one the type ' +
    'reports, name and last_error without control or invisible characters; ' +
    'id, type, org_id, created_at and data.sandbox.id stay as the emulator makes them. Only the delivered body ' +
    'changes: the sandbox itself moves as the event type says.';
  static override examples = [
    '<%= config.bin %> trigger sandbox.ready',
    '<%= config.bin %> trigger sandbox.stopped --sandbox sbx_… --last-error "the VM ran out of memory"',
    '<%= config.bin %> trigger sandbox.error --json',
    '<%= config.bin %> trigger sandbox.ready --set data.sandbox.name=web --set data.sandbox.last_error=null',
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
    set: Flags.string({
      description: 'a value in the delivered event body (repeatable)',
      helpValue: 'PATH=VALUE',
      multiple: true,
    }),
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(Trigger);
    const {move, apiUrl} = await triggerEvent({
      type: args.type,
      sandboxId: flags.sandbox,
      lastError: flags['last-error'],
      sets: flags.set,
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(move, (m) => `Triggered ${describeMove(m)} in the emulator at ${apiUrl}\n`);
    const hint = triggerHint(move, {svc: currentSvcCommand(), dataDir: flags['data-dir']});
    if (hint) this.note(hint);
  }
}
