// `svc emulator webhooks create`: adds an endpoint; its signing secret is shown exactly once.
import {EmulatorControlError} from '@svc/client';
import type {EventType} from '../../../definitions.js';
import {UserError} from '../../../lib/errors.js';
import {currentSvcCommand, shellQuote} from '../../../lib/invocation.js';
import {dataDirArg, localUrlWaysOut} from '../../../lib/hints.js';
import {toUserError} from '../../../lib/error-mapper.js';
import {type ConnectOptions, connectControl} from '../connect.js';

export interface CreateWebhookOptions extends ConnectOptions {
  url: string;
  events: string[];
  description?: string;
  /** The org to act on (`org_…`); default: the emulator's default org. */
  org?: string;
}

export interface CreateWebhookResult {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  /** Said by the emulator about an endpoint it accepted (e.g. a host it could not resolve offline). */
  warnings: string[];
}

export interface CreatedWebhookAt {
  endpoint: CreateWebhookResult;
  apiUrl: string;
}

/** A refusal of a URL on this machine, which has two ways forward: relay to it, or let the emulator post to it. */
export function isLocalUrlRefusal(err: unknown): boolean {
  if (!(err instanceof EmulatorControlError) || err.code !== 'invalid_request') return false;
  return err.problems.some((p) => p.field === 'url' && p.code === 'local_url');
}

/** Where a refused URL points, which decides the way forward: this machine, another on its network, or a public host over http. */
export function urlKind(text: string): 'this-machine' | 'network' | 'remote-http' {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'this-machine';
  }
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^(127\.|0\.0\.0\.0$)/.test(host) ||
    host === '::1'
  )
    return 'this-machine';
  const ipv4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  const privateV4 =
    ipv4 !== null &&
    (ipv4[1] === '10' ||
      (ipv4[1] === '172' && Number(ipv4[2]) >= 16 && Number(ipv4[2]) <= 31) ||
      (ipv4[1] === '192' && ipv4[2] === '168') ||
      (ipv4[1] === '169' && ipv4[2] === '254') ||
      (ipv4[1] === '100' && Number(ipv4[2]) >= 64 && Number(ipv4[2]) <= 127));
  const privateV6 = host.includes(':') && /^(f[cd]|fe[89ab])/.test(host);
  if (privateV4 || privateV6 || !host.includes('.')) return 'network';
  return url.protocol === 'http:' ? 'remote-http' : 'network';
}

export async function createWebhook(options: CreateWebhookOptions): Promise<CreatedWebhookAt> {
  const {control, info} = await connectControl(options);
  try {
    const w = await control.createWebhook({
      url: options.url,
      // As typed by a person: the emulator checks each and names any it does not know.
      events: options.events as EventType[],
      description: options.description,
      org_id: options.org,
    });
    const endpoint = {
      id: w.id,
      url: w.url,
      events: w.events,
      description: w.description,
      secret: w.secret,
      warnings: Array.isArray(w.warnings) ? w.warnings.filter((x) => typeof x === 'string') : [],
    };
    return {endpoint, apiUrl: info.api_url};
  } catch (err) {
    const userError = toUserError(err);
    const svc = currentSvcCommand(options.env);
    const dir = dataDirArg(options.dataDir);
    if (isLocalUrlRefusal(err)) {
      const kind = urlKind(options.url);
      // The emulator's own way out is general; the steps below are for this URL, so the message keeps its reason.
      const reason = userError.message.replace(/; to receive webhooks on this machine[\s\S]*$/, '');
      const steps =
        kind === 'remote-http'
          ? [
              `Use https:// (as the service does): --url ${shellQuote(options.url.replace(/^http:/i, 'https:'))}`,
            ]
          : localUrlWaysOut({
              svc,
              url: options.url,
              dataDir: options.dataDir,
              onThisMachine: kind === 'this-machine',
            });
      throw new UserError(reason, {
        code: userError.code,
        exitCode: userError.exitCode,
        suggestions: steps,
        cause: err,
      });
    } else if (userError.code === 'conflict')
      userError.suggestions.push(
        `Delete an endpoint you no longer use: \`${svc} webhooks list\` shows their ids, \`${svc} emulator webhooks delete\` followed by one deletes it${dir ? ` (with${dir})` : ''}`,
      );
    else if (userError.code === 'vault_unavailable')
      userError.suggestions.push(
        `The emulator runs without a vault key: stop it (${svc} emulator stop${dir}) and start it again without --no-vault-key`,
      );
    throw userError;
  }
}
