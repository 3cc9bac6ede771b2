// The deliveries a later version of the service may legally send today's receivers, generated from the event JSON
// Schemas (`svc events schema`) and the extension rules (src/schemas/extension-rules.ts): a field added to each
// object the schema has, a new event type, a new value of each open string field, each optional field absent, a
// second signature scheme, extra Svc-* headers. Every id comes from a seed, so every run sends the same set.
import {createHash} from 'node:crypto';
import {EVENT_TYPES, type EventType, ID_BODY_LENGTH, ID_PREFIXES, type IdKind} from '../../definitions.js';
import {
  type ExtensionRuleId,
  extensionRule,
  FUTURE_EXAMPLES,
  OPEN_VALUE_FIELDS,
} from '../../schemas/extension-rules.js';
import {eventJsonSchema, type JsonSchema} from '../../schemas/openapi.js';
import {sampleEvent} from '../../schemas/sample-event.js';

export interface FutureDelivery {
  /** The check's id: `later-…`. */
  id: string;
  rule: ExtensionRuleId;
  title: string;
  /** The generated change, in words a failure quotes. */
  change: string;
  fix: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** The event body, as sent and signed. */
  body: string;
  /** Headers sent beside the service's own. */
  headers: Record<string, string>;
  /** An entry added to Svc-Signature after t and v1. */
  signatureEntry?: string;
}

export interface FutureOptions {
  /** The time the events are of (their created_at); the ids do not depend on it. */
  now: Date;
  /** Another seed gives other ids; the changes stay the same. */
  seed?: string;
}

const DEFAULT_SEED = 'svc-test-receiver-future';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The event type whose sample carries the changes that are not about one type. */
const CARRIER: EventType = 'sandbox.ready';

/** 24 base62 characters drawn from SHA-256 of the seed and a name: the same every run. */
function seededBody(seed: string, name: string): string {
  let out = '';
  let block = createHash('sha256').update(`${seed}:${name}`).digest();
  while (out.length < ID_BODY_LENGTH) {
    for (const byte of block) {
      // 248 = 62 * 4: dropping bytes above it keeps every character equally likely, as ids.ts does.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === ID_BODY_LENGTH) break;
    }
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

function seededId(seed: string, kind: IdKind, name: string): string {
  return `${ID_PREFIXES[kind]}_${seededBody(seed, `${kind}:${name}`)}`;
}

interface ObjectNode {
  path: string[];
  schema: JsonSchema;
}

/** Every object of a schema with its path, the event itself first. */
function objectsOf(schema: JsonSchema, path: string[] = []): ObjectNode[] {
  if (schema.type !== 'object') return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return [
    {path, schema},
    ...Object.entries(properties).flatMap(([name, child]) => objectsOf(child, [...path, name])),
  ];
}

const dotted = (path: readonly string[]) => path.join('.');
const slug = (path: readonly string[]) => (path.at(-1) ?? 'event').replaceAll('_', '-');

function nodeAt(value: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  let node = value;
  for (const segment of path) node = node[segment] as Record<string, unknown>;
  return node;
}

function schemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = schema;
  for (const segment of path) node = (node?.properties as Record<string, JsonSchema> | undefined)?.[segment];
  return node;
}

/** A string field whose schema names no values (no enum, const, pattern or format): its set is open. */
function isOpenString(schema: JsonSchema | undefined): boolean {
  return (
    schema?.type === 'string' &&
    !('enum' in schema) &&
    !('const' in schema) &&
    !('pattern' in schema) &&
    !('format' in schema)
  );
}

/** The generated deliveries, in a fixed order: the same set on every run with the same seed. */
export function futureDeliveries(options: FutureOptions): FutureDelivery[] {
  const seed = options.seed ?? DEFAULT_SEED;
  const sample = (id: string, type: EventType) =>
    structuredClone(
      sampleEvent(type, {
        now: options.now,
        id: seededId(seed, 'event', id),
        orgId: seededId(seed, 'org', 'org'),
        sandbox: {id: seededId(seed, 'sandbox', id)},
      }),
    ) as unknown as Record<string, unknown>;
  const out: FutureDelivery[] = [];
  const add = (
    id: string,
    rule: ExtensionRuleId,
    title: string,
    change: string,
    event: Record<string, unknown>,
    extra: Partial<Pick<FutureDelivery, 'headers' | 'signatureEntry'>> = {},
  ) => {
    out.push({
      id,
      rule,
      title,
      change,
      fix: extensionRule(rule).fix,
      eventId: event.id as string,
      eventType: event.type as string,
      deliveryId: seededId(seed, 'delivery', id),
      body: JSON.stringify(event),
      headers: extra.headers ?? {},
      ...(extra.signatureEntry ? {signatureEntry: extra.signatureEntry} : {}),
    });
  };

  const carrierSchema = eventJsonSchema(CARRIER);
  const {field, fieldValue} = FUTURE_EXAMPLES;
  for (const {path} of objectsOf(carrierSchema)) {
    const id = `later-field-${slug(path)}`;
    const event = sample(id, CARRIER);
    nodeAt(event, path)[field] = structuredClone(fieldValue);
    const where = path.length === 0 ? 'the event' : dotted(path);
    const at = dotted([...path, field]);
    add(
      id,
      'added-field',
      `An event with a field added to ${where} (${at}, an object) is accepted`,
      `added ${at} = ${JSON.stringify(fieldValue)}`,
      event,
    );
  }

  {
    const id = 'later-event-type';
    const event = sample(id, CARRIER);
    event.type = FUTURE_EXAMPLES.eventType;
    add(
      id,
      'new-event-type',
      `An event of a type not listed today (${FUTURE_EXAMPLES.eventType}) is accepted`,
      `type ${FUTURE_EXAMPLES.eventType} (today: ${EVENT_TYPES.join(', ')})`,
      event,
    );
  }

  for (const name of OPEN_VALUE_FIELDS) {
    const path = name.split('.');
    // Only where the schema leaves the set open: a field it closes (an enum) gets no new value.
    if (!isOpenString(schemaAt(carrierSchema, path))) continue;
    const id = `later-value-${slug(path)}`;
    const event = sample(id, CARRIER);
    const parent = nodeAt(event, path.slice(0, -1));
    const before = parent[path.at(-1) as string];
    parent[path.at(-1) as string] = FUTURE_EXAMPLES.value;
    add(
      id,
      'new-value',
      `A value of ${name} not seen before ("${FUTURE_EXAMPLES.value}") is accepted`,
      `${name} = "${FUTURE_EXAMPLES.value}" (the sample has "${String(before)}")`,
      event,
    );
  }

  // Each optional field, absent from an event of the first type whose sample has it.
  const absent = new Set<string>();
  for (const type of EVENT_TYPES) {
    for (const {path, schema} of objectsOf(eventJsonSchema(type))) {
      const required = new Set((schema.required ?? []) as string[]);
      for (const name of Object.keys((schema.properties ?? {}) as object)) {
        const full = dotted([...path, name]);
        if (required.has(name) || absent.has(full)) continue;
        const id = `later-absent-${slug([name])}`;
        const event = sample(id, type);
        const parent = nodeAt(event, path);
        if (!(name in parent)) continue;
        absent.add(full);
        delete parent[name];
        add(
          id,
          'absent-optional-field',
          `A ${type} event without ${full} is accepted`,
          `${full} left out`,
          event,
        );
      }
    }
  }

  {
    const id = 'later-signature-v2';
    const scheme = FUTURE_EXAMPLES.signatureScheme;
    // 64 bytes, the length of an Ed25519 signature, in unpadded base64url: nothing a v1 parser could mistake.
    const value = createHash('sha512').update(`${seed}:${id}`).digest().toString('base64url');
    add(
      id,
      'second-signature-scheme',
      `A signature header with a second scheme beside v1 (t=…,v1=…,${scheme}=…) is accepted`,
      `Svc-Signature: t=…,v1=…,${scheme}=${value.slice(0, 8)}…`,
      sample(id, CARRIER),
      {signatureEntry: `${scheme}=${value}`},
    );
  }

  {
    const id = 'later-headers';
    const headers = {...FUTURE_EXAMPLES.headers};
    add(
      id,
      'extra-header',
      `A delivery with Svc-* headers not listed today (${Object.keys(headers).join(', ')}) is accepted`,
      `added headers ${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
      sample(id, CARRIER),
      {headers},
    );
  }
  return out;
}
