import {Args, Flags} from '@oclif/core';
import {BaseCommand} from '../../../lib/base-command.js';
import {dataDirFlag, orgFlag} from '../../../lib/flags.js';
import {SANDBOX_REQUESTABLE_ACTIONS} from '../../../definitions.js';
import {sandboxAction} from '../../../services/emulator/sandboxes/action.js';
import {describeMove} from '../../../ui/trigger.js';

export default class EmulatorSandboxesAction extends BaseCommand {
  static override summary = 'Move an emulator sandbox: resume, fork, stop, crash, fail, standby, wake, …';
  static override description =
    'Each move follows the sandbox state table and emits its event: resume and fork emit sandbox.ready; stop, ' +
    'quota-exhausted, disk-limit and crash emit sandbox.stopped; fail emits sandbox.error; standby and wake emit none.';
  static override examples = [
    '<%= config.bin %> emulator sandboxes action sbx_… stop',
    '<%= config.bin %> emulator sandboxes action sbx_… crash --last-error "out of memory"',
  ];
  static override args = {
    id: Args.string({description: 'sandbox id', required: true}),
    action: Args.string({
      description: 'what happens to it',
      required: true,
      options: [...SANDBOX_REQUESTABLE_ACTIONS],
    }),
  };
  static override flags = {
    'last-error': Flags.string({description: 'last_error for crash or fail', helpValue: 'TEXT'}),
    'data-dir': dataDirFlag(),
    org: orgFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorSandboxesAction);
    const {value: move, apiUrl} = await sandboxAction({
      id: args.id,
      action: args.action as (typeof SANDBOX_REQUESTABLE_ACTIONS)[number],
      lastError: flags['last-error'],
      org: flags.org,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    await this.show(move, (m) => `${args.action}: ${describeMove(m)} on the emulator at ${apiUrl}\n`);
  }
}
