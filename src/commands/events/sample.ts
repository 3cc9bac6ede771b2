import {Args} from '@oclif/core';
import {EVENT_TYPES, type EventType} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {eventSample} from '../../services/events/sample.js';

export default class EventsSample extends BaseCommand {
  static override summary = 'Print a valid body of an event type, with fresh ids';
  static override description =
    'What svc posts to a webhook endpoint for this type; it matches `svc events schema TYPE`. Useful as a test fixture for a receiver.';
  static override examples = [
    '<%= config.bin %> events sample sandbox.ready',
    '<%= config.bin %> events sample sandbox.expired > expired.json',
  ];
  static override args = {
    type: Args.string({description: 'event type', required: true, options: [...EVENT_TYPES]}),
  };

  async run() {
    const {args} = await this.parse(EventsSample);
    const sample = eventSample({type: args.type as EventType, now: new Date()});
    await this.show(sample, (d) => `${JSON.stringify(d, null, 2)}\n`);
  }
}
