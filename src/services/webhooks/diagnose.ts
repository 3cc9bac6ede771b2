// `svc webhooks diagnose`: why an endpoint's deliveries fail. Reads each endpoint's recent deliveries through the
// API and, where the API address is a running emulator's, the attempts of every delivery that had a failed one;
// the inference itself is diagnosis.ts, pure. Against the service, which lists deliveries only, each delivery's
// last answer is the evidence.
import {type DeliveryDetail, EmulatorControlError, type SvcClient} from '@svc/client';
import {UserError} from '../../lib/errors.js';
import type {Delivery, WebhookEndpoint} from '../../schemas/index.js';
import {checkWebhookId} from './deliveries.js';
import {deliveryDetailReader} from './deliveries/detail.js';
import {type AttemptEvidence, type Diagnosis, diagnose} from './diagnosis.js';

export interface DiagnoseOptions {
  /** The command's client: its key names the org, its address the emulator that may hold the attempts. */
  client: SvcClient;
  /** One endpoint; every endpoint of the org when not given. */
  webhookId?: string;
  env: NodeJS.ProcessEnv;
  /** The emulator's data dir, when the one serving the API address is not to be found by its address. */
  dataDir?: string;
}

export interface EndpointDiagnosis extends Diagnosis {
  endpoint_id: string;
  url: string;
  /** `attempts`: every attempt was read (an emulator); `deliveries`: each delivery's last answer only. */
  evidence: 'attempts' | 'deliveries';
}

export interface DiagnoseReport {
  endpoints: EndpointDiagnosis[];
  /** Issues of every endpoint together: 0 means healthy. */
  issues: number;
}

/** Reads one delivery's attempts; undefined where only the list is there (the service). */
export type DetailReader = ((deliveryId: string) => Promise<DeliveryDetail>) | undefined;

/** Detail reads in flight at once: enough to hide each round trip, few enough to leave the emulator room. */
const READS_AT_ONCE = 6;

export async function diagnoseEndpoints(options: DiagnoseOptions): Promise<DiagnoseReport> {
  if (options.webhookId !== undefined) checkWebhookId(options.webhookId);
  const {client} = options;
  // The key in use names the org, whose deliveries alone the emulator's detail may show.
  const org = await client.getOrg();
  const all = await client.listWebhooks();
  const endpoints = options.webhookId === undefined ? all : all.filter((e) => e.id === options.webhookId);
  if (options.webhookId !== undefined && endpoints.length === 0) {
    throw new UserError(`no webhook endpoint ${options.webhookId} in this org`, {
      code: 'not_found',
      suggestions: ['List the endpoints and their ids with `svc webhooks list`'],
    });
  }
  const read = await deliveryDetailReader({
    apiUrl: client.apiUrl,
    orgId: org.id,
    env: options.env,
    dataDir: options.dataDir,
  });
  const diagnosed: EndpointDiagnosis[] = [];
  for (const endpoint of endpoints) {
    const deliveries = await client.listDeliveries(endpoint.id);
    diagnosed.push(await diagnoseDeliveries(endpoint, deliveries, read));
  }
  return {endpoints: diagnosed, issues: diagnosed.reduce((n, d) => n + d.issues.length, 0)};
}

/** One endpoint's diagnosis from its listed deliveries, reading the attempts of those that failed at least once. */
export async function diagnoseDeliveries(
  endpoint: Pick<WebhookEndpoint, 'id' | 'url'>,
  deliveries: readonly Delivery[],
  read: DetailReader,
): Promise<EndpointDiagnosis> {
  const attempts = await gatherEvidence(deliveries, read);
  return {
    endpoint_id: endpoint.id,
    url: endpoint.url,
    evidence: read ? 'attempts' : 'deliveries',
    ...diagnose({url: endpoint.url, attempts}),
  };
}

/** A delivery some attempt of which failed: its attempts are the evidence worth reading. */
function hadFailure(d: Delivery): boolean {
  if (d.attempts === 0) return false;
  return d.status !== 'succeeded' || d.attempts > 1;
}

async function gatherEvidence(
  deliveries: readonly Delivery[],
  read: DetailReader,
): Promise<AttemptEvidence[]> {
  const details = new Map<string, DeliveryDetail>();
  if (read) {
    const wanted = deliveries.filter(hadFailure).map((d) => d.id);
    let next = 0;
    const worker = async () => {
      while (next < wanted.length) {
        const id = wanted[next++] as string;
        // One gone since the list was read (its endpoint deleted, past retention) keeps its list record.
        const detail = await read(id).catch((err: unknown) => {
          if (err instanceof EmulatorControlError && err.code === 'not_found') return undefined;
          throw err;
        });
        if (detail) details.set(id, detail);
      }
    };
    await Promise.all(Array.from({length: Math.min(READS_AT_ONCE, wanted.length)}, worker));
  }
  const evidence: AttemptEvidence[] = [];
  for (const d of deliveries) {
    const detail = details.get(d.id);
    if (detail) {
      for (const a of detail.attempts) {
        evidence.push({
          deliveryId: d.id,
          eventType: d.event_type,
          attempt: a.attempt,
          statusCode: a.status_code,
          error: a.error,
          durationMs: a.duration_ms,
          body: a.response_body,
          startedAt: a.started_at,
        });
      }
    } else if (d.attempts > 0) {
      // The list's record: its last answer stands for the delivery (why an answer was missing is not said).
      evidence.push({
        deliveryId: d.id,
        eventType: d.event_type,
        attempt: d.attempts,
        statusCode: d.last_status_code,
        error: null,
        durationMs: null,
        body: null,
        startedAt: d.last_attempt_at,
      });
    }
  }
  return evidence;
}
