// The JSON Schema of a scenario file, built from the service's definitions: the file users' editors validate
// against (shipped as fixtures/scenario.schema.json, `npm run docs` writes it again) and the one the runner checks
// every file with before anything runs.
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  KEY_EXPIRY_CHOICES,
  SANDBOX_REQUESTABLE_ACTIONS,
  SCENARIO_ATTEMPT_OUTCOMES,
} from '../definitions.js';

const duration = {
  type: 'string',
  pattern: '^(\\d+(ms|s|m|h|d))+$',
  description: 'A virtual duration: whole numbers with units, like 30s, 10m, 2h30m, 1d',
};
const name = {
  type: 'string',
  pattern: '^[A-Za-z][\\w.-]*$',
  description: 'A name the file gives, to use later',
};
const ref = (what: string) => ({
  type: 'string',
  minLength: 1,
  description: `The name of ${what} of this file`,
});
const eventType = {enum: [...EVENT_TYPES]};
const attemptRange = {
  description: 'An attempt number, a range like "1-3", or a list of numbers',
  oneOf: [
    {type: 'integer', minimum: 1},
    {type: 'string', pattern: '^\\d+-\\d+$'},
    {type: 'array', items: {type: 'integer', minimum: 1}, minItems: 1},
  ],
};
const object = (properties: Record<string, unknown>, required: string[] = [], description?: string) => ({
  type: 'object',
  ...(description ? {description} : {}),
  properties,
  required,
  additionalProperties: false,
});
/** Which event a step or expectation means: one a step named (`event`), or the first of a type (of a sandbox). */
const eventSelector = {
  event: ref('an event (a trigger or sandbox step’s `as`)'),
  type: eventType,
  sandbox: ref('a sandbox (a create_sandbox step’s `as`)'),
};

const receiver = object(
  {
    command: {
      description: 'The program and its arguments (a list), or a line run by /bin/sh',
      oneOf: [
        {type: 'string', minLength: 1},
        {type: 'array', items: {type: 'string'}, minItems: 1},
      ],
    },
    port_env: {
      type: 'string',
      pattern: '^[A-Z_][A-Z0-9_]*$',
      description: 'The variable that carries the port (default PORT)',
    },
    env: {type: 'object', additionalProperties: {type: 'string'}},
    cwd: {
      type: 'string',
      description: 'Where it runs, from the scenario file’s folder (default: that folder)',
    },
  },
  ['command'],
  'A receiver the scenario starts before its steps and stops after them',
);

const endpoint = object(
  {
    receiver: ref('a receiver'),
    url: {type: 'string', pattern: '^https?://', description: 'A receiver already running'},
    path: {type: 'string', pattern: '^/', description: 'The path on the receiver (default /)'},
    events: {type: 'array', items: eventType, minItems: 1, uniqueItems: true},
    probe: {
      type: 'string',
      description: 'The probe: a path on the receiver or a URL (GET ?event_id= → {"applied": n})',
    },
  },
  [],
  'An endpoint of the scenario’s org; deliveries pass the stand-in, which answers for the receiver where told',
);

const steps: Record<string, unknown> = {
  trigger: {
    oneOf: [
      eventType,
      object(
        {
          type: eventType,
          as: name,
          sandbox: ref('a sandbox'),
          set: {
            type: 'object',
            description: 'Values placed at dotted paths of the event (data.sandbox.name)',
          },
          last_error: {type: 'string'},
        },
        ['type'],
      ),
    ],
  },
  advance: duration,
  set_clock: {type: 'string', description: 'An ISO 8601 time with its zone'},
  chaos: object(
    {
      endpoint: ref('an endpoint'),
      duplicate: {type: 'number', minimum: 0, maximum: 1},
      reorder: {type: 'number', minimum: 0, maximum: 1},
      delay_min_ms: {type: 'integer', minimum: 0},
      delay_max_ms: {type: 'integer', minimum: 0},
      seed: {type: 'integer'},
      off: {const: true},
    },
    ['endpoint'],
  ),
  answer: object(
    {
      endpoint: ref('an endpoint'),
      attempts: attemptRange,
      status: {
        description: 'The status the stand-in answers with, or "receiver" to pass the attempt on',
        oneOf: [{type: 'integer', minimum: 100, maximum: 599}, {const: 'receiver'}],
      },
      body: {type: 'string'},
    },
    ['endpoint', 'attempts', 'status'],
  ),
  resend: object({...eventSelector, endpoint: ref('an endpoint')}, ['endpoint']),
  create_key: object({name, expires: {enum: [...KEY_EXPIRY_CHOICES]}}, ['name']),
  revoke_key: ref('a key'),
  create_sandbox: object({as: name, name: {type: 'string'}, expires_in: duration}, ['as']),
  sandbox: object(
    {
      sandbox: ref('a sandbox'),
      action: {enum: [...SANDBOX_REQUESTABLE_ACTIONS]},
      as: name,
      last_error: {type: 'string'},
    },
    ['sandbox', 'action'],
  ),
  checkpoint: name,
  rewind: ref('a checkpoint'),
};

const expectations: Record<string, unknown> = {
  attempt: object(
    {
      ...eventSelector,
      endpoint: ref('an endpoint'),
      n: {type: 'integer', minimum: 1},
      status: {type: 'integer', minimum: 100, maximum: 599},
      outcome: {enum: [...SCENARIO_ATTEMPT_OUTCOMES]},
    },
    ['endpoint', 'n'],
  ),
  arrives: object({...eventSelector, endpoint: ref('an endpoint'), within: duration}, ['endpoint', 'within']),
  delivery: object(
    {
      ...eventSelector,
      endpoint: ref('an endpoint'),
      status: {enum: [...DELIVERY_STATUSES]},
      attempts: {type: 'integer', minimum: 0},
    },
    ['endpoint'],
  ),
  count: object(
    {
      endpoint: ref('an endpoint'),
      deliveries: {type: 'integer', minimum: 0},
      attempts: {type: 'integer', minimum: 0},
      ...eventSelector,
      status: {enum: [...DELIVERY_STATUSES]},
    },
    ['endpoint'],
  ),
  probe: object({...eventSelector, endpoint: ref('an endpoint'), applied: {type: 'integer', minimum: 0}}, [
    'endpoint',
    'applied',
  ]),
  key: object({name: ref('a key'), status: {enum: ['active', 'revoked', 'expired']}}, ['name', 'status']),
};

export const SCENARIO_STEP_KINDS = Object.keys(steps);
export const SCENARIO_EXPECTATION_KINDS = Object.keys(expectations);

export const SCENARIO_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'svc scenario',
  description: 'Steps run against a receiver on an org of its own with a manual clock (`svc scenario run`)',
  type: 'object',
  properties: {
    $schema: {type: 'string'},
    name: {type: 'string', minLength: 1},
    description: {type: 'string'},
    start: {
      type: 'string',
      description: 'The org clock’s time before the first step (ISO 8601); default: the emulator’s',
    },
    receivers: {type: 'object', propertyNames: name, additionalProperties: receiver},
    endpoints: {type: 'object', propertyNames: name, additionalProperties: endpoint, minProperties: 1},
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        description: 'One action, or `expect:` with one expectation',
        properties: {
          ...steps,
          expect: {
            type: 'object',
            properties: {name: {type: 'string', minLength: 1}, ...expectations},
            additionalProperties: false,
            minProperties: 1,
          },
        },
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 1,
      },
    },
  },
  required: ['name', 'endpoints', 'steps'],
  additionalProperties: false,
} as const;
