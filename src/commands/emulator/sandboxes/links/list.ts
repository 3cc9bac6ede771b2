import {Args} from '@oclif/core';
import {BaseCommand} from '../../../../lib/base-command.js';
import {dataDirFlag} from '../../../../lib/flags.js';
import {currentSvcCommand} from '../../../../lib/invocation.js';
import {listLinks} from '../../../../services/emulator/sandboxes/links/list.js';
import {renderSandboxLinks} from '../../../../ui/emulator.js';
import {terminalView} from '../../../../ui/views.js';

export default class EmulatorSandboxesLinksList extends BaseCommand {
  static override summary =
    "List the emulator's port sessions, desktop links and browser URLs with their status (never their URLs)";
  static override examples = [
    '<%= config.bin %> emulator sandboxes links list',
    '<%= config.bin %> emulator sandboxes links list sbx_… --json',
  ];
  static override args = {
    sandbox: Args.string({description: "only this sandbox's links"}),
  };
  static override flags = {
    'data-dir': dataDirFlag(),
  };

  async run() {
    const {args, flags} = await this.parse(EmulatorSandboxesLinksList);
    const {links, nowMs, apiUrl} = await listLinks({
      sandboxId: args.sandbox,
      dataDir: flags['data-dir'],
      env: process.env,
    });
    this.note(`Links on the emulator at ${apiUrl}:`);
    await this.show({data: links}, async ({data}, view) =>
      renderSandboxLinks(data, {
        ...(await terminalView(view, nowMs)),
        svc: currentSvcCommand(),
        dataDir: flags['data-dir'],
      }),
    );
  }
}
