// `svc tui`: where the delivery browser gets its data. Always /v1 through the client; when the API address is a
// running emulator's, also its control surface, for attempt detail and resends. No Ink here: the UI is loaded
// by the command, and takes this source as it is.
import type {DeliveryDetail, EmulatorControl} from '../../emulator/control-client.js';
import {defaultFileStore, resolveStoredApiUrl} from '../auth/resolve.js';
import {openSession, type Session} from '../auth/session.js';
import {ExitCode} from '../lib/exit-codes.js';
import {usageError} from '../lib/errors.js';
import type {Delivery, WebhookEndpoint} from '../schemas/index.js';
import {emulatorControlFor} from './emulator/for-api-url.js';

export interface TuiSource {
  readonly apiUrl: string;
  /** Attempt detail and resend are there (the API address is a running emulator's). */
  readonly emulator: boolean;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  listDeliveries(endpointId: string): Promise<Delivery[]>;
  /** The emulator's detail of one delivery; undefined against the service, which lists deliveries only. */
  deliveryDetail?(deliveryId: string): Promise<DeliveryDetail>;
  resend?(deliveryId: string): Promise<DeliveryDetail>;
}

/** How a failed refresh is shown: each kind has its own screen and next step. */
export type TroubleKind = 'unauthorized' | 'vault_unavailable' | 'network' | 'not_found' | 'other';

export interface Trouble {
  kind: TroubleKind;
  message: string;
}

export function describeTrouble(err: unknown): Trouble {
  const e = err as {code?: unknown; status?: unknown; exitCode?: unknown; message?: unknown};
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (e?.exitCode === ExitCode.unauthorized || e?.status === 401 || e?.code === 'unauthorized')
    return {kind: 'unauthorized', message};
  if (e?.code === 'vault_unavailable' || e?.status === 503) return {kind: 'vault_unavailable', message};
  if (e?.code === 'network_error' || e?.code === 'unreachable' || e?.status === 0 || e?.code === 'timeout')
    return {kind: 'network', message};
  if (e?.code === 'not_found' || e?.status === 404) return {kind: 'not_found', message};
  return {kind: 'other', message};
}

export interface OpenTuiSourceOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  /** The emulator's data dir (default: SVC_EMULATOR_DATA_DIR, then the user data dir). */
  dataDir?: string;
}

export async function openTuiSource(options: OpenTuiSourceOptions): Promise<TuiSource> {
  const flags = {apiUrl: options.apiUrl};
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags,
    fileStore: defaultFileStore(options.env),
  });
  const control: EmulatorControl | undefined = await emulatorControlFor(apiUrl, {
    env: options.env,
    dataDir: options.dataDir,
  });
  // Opened on first use, so that "not logged in" is a screen of the browser (which keeps trying) rather than an exit.
  let session: Promise<Session> | undefined;
  const client = async () => {
    session ??= openSession({env: options.env, flags, client: {retries: 0, timeoutMs: 5_000}});
    try {
      return (await session).client;
    } catch (err) {
      session = undefined;
      throw err;
    }
  };
  const source: TuiSource = {
    apiUrl,
    emulator: control !== undefined,
    listEndpoints: async () => (await client()).listWebhooks(),
    listDeliveries: async (endpointId) => (await client()).listDeliveries(endpointId),
  };
  if (control) {
    source.deliveryDetail = (id) => control.delivery(id);
    source.resend = (id) => control.resendDelivery(id);
  }
  return source;
}

/** A full-screen browser needs a person at a terminal; scripts get the commands that print the same as JSON. */
export function requireTerminal(stdin: {isTTY?: boolean}, stdout: {isTTY?: boolean}): void {
  if (stdin.isTTY && stdout.isTTY) return;
  throw usageError('svc tui is a full-screen browser and needs a terminal (stdin and stdout)', [
    'Endpoints and their deliveries: `svc webhooks list --json`, then `svc webhooks deliveries WEBHOOK_ID --json`',
    'One delivery with its attempts: `svc webhooks deliveries show DELIVERY_ID --json`',
  ]);
}
