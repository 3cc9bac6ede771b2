// A scenario file as the runner reads it (the shape its JSON Schema, ./schema.ts, checks), and what a run reports.
import type {
  DeliveryStatus,
  EventType,
  KeyExpiryChoice,
  SandboxAction,
  ScenarioAttemptOutcome,
} from '../definitions.js';

export interface ReceiverSpec {
  command: string | string[];
  port_env?: string;
  env?: Record<string, string>;
  cwd?: string;
}

export interface EndpointSpec {
  receiver?: string;
  url?: string;
  path?: string;
  events?: EventType[];
  probe?: string;
}

/** Which event: one a step named, else the first of a type (of a sandbox), else the endpoint's only one. */
export interface EventSelector {
  event?: string;
  type?: EventType;
  sandbox?: string;
}

export type Step =
  | {
      trigger:
        | EventType
        | {
            type: EventType;
            as?: string;
            sandbox?: string;
            set?: Record<string, unknown>;
            last_error?: string;
          };
    }
  | {advance: string}
  | {set_clock: string}
  | {
      chaos: {
        endpoint: string;
        duplicate?: number;
        reorder?: number;
        delay_min_ms?: number;
        delay_max_ms?: number;
        seed?: number;
        off?: true;
      };
    }
  | {
      answer: {
        endpoint: string;
        attempts: number | string | number[];
        status: number | 'receiver';
        body?: string;
      };
    }
  | {resend: EventSelector & {endpoint: string}}
  | {create_key: {name: string; expires?: KeyExpiryChoice}}
  | {revoke_key: string}
  | {create_sandbox: {as: string; name?: string; expires_in?: string}}
  | {sandbox: {sandbox: string; action: Exclude<SandboxAction, 'expire'>; as?: string; last_error?: string}}
  | {checkpoint: string}
  | {rewind: string}
  | {expect: Expectation};

export type Expectation = {name?: string} & (
  | {
      attempt: EventSelector & {
        endpoint: string;
        n: number;
        status?: number;
        outcome?: ScenarioAttemptOutcome;
      };
    }
  | {arrives: EventSelector & {endpoint: string; within: string}}
  | {delivery: EventSelector & {endpoint: string; status?: DeliveryStatus; attempts?: number}}
  | {
      count: EventSelector & {
        endpoint: string;
        deliveries?: number;
        attempts?: number;
        status?: DeliveryStatus;
      };
    }
  | {probe: EventSelector & {endpoint: string; applied: number}}
  | {key: {name: string; status: 'active' | 'revoked' | 'expired'}}
);

export interface Scenario {
  name: string;
  description?: string;
  start?: string;
  receivers?: Record<string, ReceiverSpec>;
  endpoints: Record<string, EndpointSpec>;
  steps: Step[];
}

/** A place in a scenario file (1-based), for its problems and its steps. */
export interface FilePlace {
  line: number;
  column: number;
}

/** One thing wrong with a file, where it is. */
export interface FileProblem extends FilePlace {
  /** Where in the document, dotted (`steps[2].trigger.type`); empty for the whole file. */
  path: string;
  message: string;
}

/** A scenario read from a file, with the place of each step. */
export interface ReadScenario {
  file: string;
  scenario: Scenario;
  stepPlaces: FilePlace[];
}

/** How one expectation (or a step that could not be made) went. */
export interface ExpectationResult {
  /** Its own name, or the words the runner gives it (`attempt 4 of first to main is 200`). */
  name: string;
  /** The step's index (0-based) and place in the file. */
  step: number;
  line: number;
  passed: boolean;
  /** What happened instead, when it failed. */
  got?: string;
}

export interface ScenarioResult {
  file: string;
  name: string;
  passed: boolean;
  expectations: ExpectationResult[];
  /** A step that could not be done (the run stopped there): which, and why. */
  error?: {step: number; line: number; message: string};
  /** The org the scenario ran in (deleted after the run unless kept). */
  org_id: string;
  /** Virtual time the run moved the org's clock through, in milliseconds. */
  virtual_ms: number;
  /** The last lines each receiver the scenario started wrote, when it failed. */
  receiver_output?: Record<string, string>;
}
