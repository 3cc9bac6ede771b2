// `svc tui`: where the delivery browser gets its data. Always /v1 through the client; when the API address is a
// running emulator's, also its control surface, for attempt detail and resends. No Ink here: the UI is loaded
// by the command, and takes this source as it is.
import {defaultFileStore, NoApiAddressError, resolveStoredApiUrl} from '../auth/resolve.js';
import {type DeliveryDetail, type EmulatorControl, EmulatorControlError, type SvcClient} from '@svc/client';
import {NETWORK_ERROR_CODES, toUserError} from '../lib/error-mapper.js';
import {noEmulatorError, type UserError, usageError} from '../lib/errors.js';
import {dataDirArg, portArg} from '../lib/hints.js';
import {currentSvcCommand} from '../lib/invocation.js';
import {emulatorControlFor} from './emulator/for-api-url.js';
import type {WebhookEndpoint} from '../schemas/index.js';
import type {TuiSource} from './tui-source.js';
import {readDeliveryDetail} from './webhooks/deliveries/detail.js';
import {diagnoseDeliveries} from './webhooks/diagnose.js';

export type {TuiSource} from './tui-source.js';

export interface OpenTuiSourceOptions {
  env: NodeJS.ProcessEnv;
  apiUrl?: string;
  /** The emulator's data dir (default: SVC_EMULATOR_DATA_DIR, then the user data dir). */
  dataDir?: string;
  /**
   * The command's client, asked for on each use: "not logged in" is a screen of the browser, which keeps asking
   * (an opening that failed is tried again), and follows the first login made from another terminal.
   */
  client: () => Promise<SvcClient>;
}

export async function openTuiSource(options: OpenTuiSourceOptions): Promise<TuiSource> {
  const flags = {apiUrl: options.apiUrl};
  // No address yet (none given, no login, no default in this build): the browser opens anyway, says so on its
  // first screen, and follows the first login made from another terminal.
  const apiUrl = await resolveStoredApiUrl({
    env: options.env,
    flags,
    fileStore: defaultFileStore(options.env),
  }).catch((err: unknown) => {
    if (err instanceof NoApiAddressError) return '';
    throw err;
  });
  const {nodeHttpFetch} = await import('../lib/node-transport.js');
  // Node's own fetch would load all of undici before the first screen; its calls send no body.
  const controlFetch = nodeHttpFetch();
  const controlFor = (url: string) =>
    emulatorControlFor(url, {env: options.env, dataDir: options.dataDir, fetch: controlFetch});
  // Where the browser reads now. A login made in another terminal while it showed "not logged in" may name
  // another address (the emulator's): the header, attempt detail and resend follow the session once it opens.
  let current: {apiUrl: string; control: EmulatorControl | undefined} = {
    apiUrl,
    control: apiUrl === '' ? undefined : await controlFor(apiUrl),
  };
  // Opened on first use, so that "not logged in" is a screen of the browser (which keeps trying) rather than an exit.
  let opened: SvcClient | undefined;
  let orgId: Promise<string> | undefined;
  const client = async () => {
    opened = await options.client();
    if (opened.apiUrl !== current.apiUrl) {
      current = {apiUrl: opened.apiUrl, control: await controlFor(opened.apiUrl)};
      orgId = undefined;
    }
    return opened;
  };
  const org = () => {
    orgId ??= client().then((c) => c.getOrg().then((o) => o.id));
    orgId.catch(() => {
      orgId = undefined;
    });
    return orgId;
  };
  // The org's own deliveries only, read like `deliveries show` and MCP read them.
  const detail = async (deliveryId: string): Promise<DeliveryDetail> => {
    const where = current.apiUrl;
    const found = await readDeliveryDetail({
      apiUrl: where,
      orgId: await org(),
      deliveryId,
      env: options.env,
      dataDir: options.dataDir,
      fetch: controlFetch,
    });
    if (!found)
      throw new EmulatorControlError(`the emulator serving ${where} is no longer running`, 0, 'unreachable');
    return found;
  };
  const svc = currentSvcCommand(options.env);
  /**
   * A failure as svc's own error, made here, in the CLI's bundle: the browser is a bundle of its own, whose copies
   * of the client's error classes would not know these (every failure read as an internal error). A network failure
   * at an emulator's address is looked into: the emulator has stopped (its emulator.json is gone), or a restarted
   * one answers there now, whose control surface (a new admin token) is taken up.
   */
  const explained = async (err: unknown): Promise<UserError> => {
    const e = toUserError(err);
    const hadEmulator = current.control !== undefined;
    if (!hadEmulator || !NETWORK_ERROR_CODES.has(e.code) || current.apiUrl === '') return e;
    const where = current.apiUrl;
    const now = await controlFor(where).catch(() => undefined);
    if (current.apiUrl !== where) return e;
    if (now) {
      current = {apiUrl: where, control: now};
      return e;
    }
    // The way out is in the message: the browser shows it beside the last data it keeps on screen.
    const start = `${svc} emulator start${portArg(where)}${dataDirArg(options.dataDir)}`;
    return noEmulatorError(`the emulator at ${where} has stopped; start it again with \`${start}\``);
  };
  const told =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (err) {
        throw await explained(err);
      }
    };
  const toldDetail = told(detail);
  const source: TuiSource = {
    get apiUrl() {
      return current.apiUrl;
    },
    svc,
    get emulator() {
      return current.control !== undefined;
    },
    listEndpoints: told(async () => (await client()).listWebhooks()),
    listDeliveries: told(async (endpointId: string) => (await client()).listDeliveries(endpointId)),
    // The API's clock as its answers date them: an emulator's may be set by hand.
    now: () => opened?.serverNowMs() ?? Date.now(),
    // The emulator's, for the key's own org.
    get endpointHealth() {
      const control = current.control;
      return control ? told(async () => (await control.endpointHealth(await org())).data) : undefined;
    },
    get deliveryDetail() {
      return current.control ? toldDetail : undefined;
    },
    // The same diagnosis as `svc webhooks diagnose`, from the same reads the screens make.
    diagnose: told(async (endpoint: WebhookEndpoint) =>
      diagnoseDeliveries(
        endpoint,
        await (await client()).listDeliveries(endpoint.id),
        current.control ? detail : undefined,
      ),
    ),
    get resend() {
      const control = current.control;
      return control
        ? told(async (id: string) => {
            await detail(id);
            return control.resendDelivery(id);
          })
        : undefined;
    },
  };
  return source;
}

/** The same source, whose endpoints are already being fetched: the first screen's data loads beside Ink. */
export function prefetchEndpoints(
  source: TuiSource,
  asked: Promise<Awaited<ReturnType<TuiSource['listEndpoints']>>> = source.listEndpoints(),
): TuiSource {
  let first: typeof asked | undefined = asked;
  // Handled here; the browser's first refresh receives the outcome, failure included.
  first.catch(() => undefined);
  const list = source.listEndpoints.bind(source);
  // The source itself, not a copy: its address and emulator parts may change once a session opens.
  return Object.assign(source, {
    listEndpoints: () => {
      const answer = first ?? list();
      first = undefined;
      return answer;
    },
  });
}

/** A full-screen browser needs a person at a terminal; scripts get the commands that print the same as JSON. */
export function requireTerminal(stdin: {isTTY?: boolean}, stdout: {isTTY?: boolean}): void {
  if (stdin.isTTY && stdout.isTTY) return;
  throw usageError('svc tui is a full-screen browser and needs a terminal (stdin and stdout)', [
    'Endpoints and their deliveries: `svc webhooks list --json`, then `svc webhooks deliveries WEBHOOK_ID --json`',
    'One delivery with its attempts: `svc webhooks deliveries show DELIVERY_ID --json`',
  ]);
}
