// `svc events schema TYPE`: the JSON Schema (2020-12) of one event type's body, for receivers in any language.
import type {EventType} from '../../definitions.js';
import {eventJsonSchema, type JsonSchema} from '../../schemas/openapi.js';

export function eventSchema(options: {type: EventType}): JsonSchema {
  return eventJsonSchema(options.type);
}
