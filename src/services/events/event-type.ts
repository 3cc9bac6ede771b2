// The CLI's one check of an event type given on the command line, by the receiver library's own test.
import {EVENT_TYPES, type EventType} from '../../definitions.js';
import {usageError} from '../../lib/errors.js';
import {isWebhookEventType} from '@svc/webhooks';

/** `text` as an event type, or a usage error listing the known ones ("some of" where a list is taken). */
export function parseEventType(text: string, options: {several?: boolean} = {}): EventType {
  if (isWebhookEventType(text)) return text;
  throw usageError(`unknown event type ${JSON.stringify(text)}`, [
    `Use ${options.several ? 'some' : 'one'} of: ${EVENT_TYPES.join(', ')}`,
  ]);
}
