// What a later version of the service may send a receiver without a new API version: the extension rules of the
// event bodies and delivery headers, written once. docs/webhooks.md ("What a later service may send") states them
// for people; `svc webhooks test-receiver` generates its `future` checks from them and the event JSON Schemas.
import {DELIVERY_HEADERS} from '../definitions.js';

export type ExtensionRuleId =
  | 'added-field'
  | 'new-event-type'
  | 'new-value'
  | 'absent-optional-field'
  | 'second-signature-scheme'
  | 'extra-header';

export interface ExtensionRule {
  id: ExtensionRuleId;
  /** The rule, one sentence, as docs/webhooks.md states it. */
  rule: string;
  /** What a receiver does so that the change passes it by. */
  fix: string;
}

export const EXTENSION_RULES: readonly ExtensionRule[] = Object.freeze([
  {
    id: 'added-field',
    rule: 'A field may be added to any object of an event, at any level, with a value of any JSON type.',
    fix: 'Ignore fields you do not know: do not validate with additionalProperties: false, a strict model or a deserializer that fails on unknown properties.',
  },
  {
    id: 'new-event-type',
    rule: `A new event type may be delivered (with the same envelope: id, type, created_at, org_id, data.sandbox), to endpoints that subscribe to it; its ${DELIVERY_HEADERS.eventType} header names it.`,
    fix: 'Answer 2xx to an event type you do not handle and do nothing with it: give your switch a default that acknowledges.',
  },
  {
    id: 'new-value',
    rule: 'A string field whose schema lists no values (data.sandbox.status, data.sandbox.desired_state) may carry a value not seen before.',
    fix: 'Treat a value you do not know as "other": do not check these fields against a closed enum.',
  },
  {
    id: 'absent-optional-field',
    rule: 'A field the schema does not require may be absent from any event, of any type.',
    fix: 'Read optional fields as optional (last_error and expires_at may be missing from any event).',
  },
  {
    id: 'second-signature-scheme',
    rule: `${DELIVERY_HEADERS.signature} may carry entries of another scheme (v2=…) beside t and v1; a receiver checks v1 and ignores the others.`,
    fix: `Parse ${DELIVERY_HEADERS.signature} as comma-separated name=value entries, check only v1 and ignore names you do not know.`,
  },
  {
    id: 'extra-header',
    rule: 'A delivery may carry Svc-* headers not listed today.',
    fix: 'Read only the Svc-* headers you use; never refuse a delivery for a header you do not know.',
  },
]);

export function extensionRule(id: ExtensionRuleId): ExtensionRule {
  return EXTENSION_RULES.find((r) => r.id === id) as ExtensionRule;
}

/** The string fields whose values form a set the service names but keeps open (they carry no enum in the schema). */
export const OPEN_VALUE_FIELDS: readonly string[] = Object.freeze([
  'data.sandbox.status',
  'data.sandbox.desired_state',
]);

/** What the generated changes put in: names no version of the service uses, so none can be mistaken for a real one. */
export const FUTURE_EXAMPLES = Object.freeze({
  /** An added field, with an object value that nests a list (a receiver must skip it whole). */
  field: 'added_later',
  fieldValue: Object.freeze({kind: 'example', values: Object.freeze([1, 'two', null])}),
  /** A new event type, in the envelope of a sandbox event. */
  eventType: 'sandbox.resized',
  /** A value of an open set: no sandbox status the service names today. */
  value: 'resizing',
  /** The second signature scheme, with a value of a shape v1 never has (an Ed25519 signature in base64). */
  signatureScheme: 'v2',
  headers: Object.freeze({'Svc-Api-Version': '2027-01-01', 'Svc-Trace-Id': 'trace_later_0001'}),
});
