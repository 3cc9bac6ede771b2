// `svc events sample TYPE`: a valid body of one event type, with fresh ids, as svc would post it.
import type {EventType} from '../../definitions.js';
import {eventSchemaFor, type SvcEvent} from '../../schemas/index.js';
import {sampleEvent} from '../../schemas/sample-event.js';

export interface EventSampleOptions {
  type: EventType;
  now: Date;
}

export function eventSample(options: EventSampleOptions): SvcEvent {
  // The sample is checked against the very schema `svc events schema` prints.
  return eventSchemaFor(options.type).parse(sampleEvent(options.type, {now: options.now}));
}
