import {Flags} from '@oclif/core';
import {BaseCommand} from '../lib/base-command.js';
import {dataDirFlag} from '../lib/flags.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {listen, parseEvents} from '../services/listen.js';
import {ListenOutput} from '../ui/listen.js';

export default class Listen extends BaseCommand {
  static override summary = "Forward the emulator's webhook deliveries to a local URL";
  static override description =
    'Registers a relay endpoint with the running emulator (the same one every time, so its signing secret stays ' +
    'the same), receives its deliveries as they happen and forwards the exact bytes and Svc-* headers to ' +
    '--forward-to, one at a time. The local answer is reported back, so retries follow what your server did. ' +
    'Deliveries that happen while svc listen is not running wait and follow once it is back.';
  static override examples = [
    '<%= config.bin %> listen --forward-to http://127.0.0.1:3000/webhooks',
    '<%= config.bin %> listen --forward-to http://127.0.0.1:3000/webhooks --events sandbox.ready,sandbox.error',
    '<%= config.bin %> listen --forward-to http://127.0.0.1:3000/webhooks --take-over',
    'export SVC_WEBHOOK_SECRET=$(<%= config.bin %> listen --print-secret)',
  ];
  static override flags = {
    'forward-to': Flags.string({description: 'local URL that receives the deliveries', helpValue: 'URL'}),
    events: Flags.string({description: 'comma-separated event types (default: all)', helpValue: 'TYPES'}),
    'print-secret': Flags.boolean({description: 'print the signing secret to stdout and exit'}),
    'take-over': Flags.boolean({
      description:
        'take the relay from the svc listen that forwards it now (that one says so and stops); only this once',
    }),
    'data-dir': dataDirFlag(),
  };

  async run(): Promise<void> {
    const {flags} = await this.parse(Listen);
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await listen({
        forwardTo: flags['forward-to'],
        events: parseEvents(flags.events),
        json: this.jsonEnabled(),
        printSecret: flags['print-secret'],
        takeOver: flags['take-over'],
        dataDir: flags['data-dir'],
        env: process.env,
        // Its live output: a line per delivery and answer as they happen, on the streams held for the run.
        report: new ListenOutput({
          io: this.streams(),
          json: this.jsonEnabled(),
          dataDir: flags['data-dir'],
          svc: currentSvcCommand(process.env),
        }),
        signal: stop.signal,
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
}
