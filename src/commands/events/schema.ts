import {Args} from '@oclif/core';
import {EVENT_TYPES, type EventType} from '../../definitions.js';
import {BaseCommand} from '../../lib/base-command.js';
import {eventSchema} from '../../services/events/schema.js';

export default class EventsSchema extends BaseCommand {
  static override summary = "Print the JSON Schema of an event type's body";
  static override description =
    'JSON Schema 2020-12, for checking webhook bodies in any language. The same schema is in the OpenAPI document (`svc emulator openapi`, under webhooks).';
  static override examples = [
    '<%= config.bin %> events schema sandbox.ready',
    '<%= config.bin %> events schema sandbox.stopped > sandbox.stopped.schema.json',
  ];
  static override args = {
    type: Args.string({description: 'event type', required: true, options: [...EVENT_TYPES]}),
  };

  async run() {
    const {args} = await this.parse(EventsSchema);
    const schema = eventSchema({type: args.type as EventType});
    await this.show(schema, (d) => `${JSON.stringify(d, null, 2)}\n`);
  }
}
