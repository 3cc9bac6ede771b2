// `svc emulator webhooks create`: adds an endpoint; its signing secret is shown exactly once.
import {EmulatorControlError} from '@svc/client';
import type {EventType, LocalUrlKind} from '../../../definitions.js';
import {UserError} from '../../../lib/errors.js';
import {currentSvcCommand, shellQuote} from '../../../lib/invocation.js';
import {dataDirArg, localUrlWaysOut, portArg} from '../../../lib/hints.js';
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

/**
 * Where a URL the emulator refused as local points, by the emulator's own verdict (the `local_url` problem and
 * its kind): this machine, a host of a local network, or a public host over plain http. Undefined for any
 * other refusal.
 */
export function localUrlKind(err: unknown): LocalUrlKind | undefined {
  if (!(err instanceof EmulatorControlError) || err.code !== 'invalid_request') return undefined;
  const problem = err.problems.find((p) => p.field === 'url' && p.code === 'local_url');
  return problem ? (problem.kind ?? 'this_machine') : undefined;
}

export async function createWebhook(options: CreateWebhookOptions): Promise<CreatedWebhookAt> {
  const {control, info} = await connectControl(options);
  const refused = (err: unknown) => refusedWebhook(err, options, info.api_url);
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
    throw refused(err);
  }
}

/**
 * The emulator's refusal as the CLI shows it. A URL refused as local keeps the emulator's reason for it (its
 * problem's message) with the steps for where it points; the limit of endpoints and a missing vault key get the
 * step that fits; the emulator's message itself is never rewritten.
 */
function refusedWebhook(err: unknown, options: CreateWebhookOptions, apiUrl: string): UserError {
  const svc = currentSvcCommand(options.env);
  const dir = dataDirArg(options.dataDir);
  const kind = localUrlKind(err);
  const problem =
    err instanceof EmulatorControlError ? err.problems.find((p) => p.code === 'local_url') : undefined;
  if (kind && problem) {
    const steps =
      kind === 'plain_http'
        ? [
            `Use https:// (as the service does): --url ${shellQuote(options.url.replace(/^http:/i, 'https:'))}`,
          ]
        : localUrlWaysOut({
            svc,
            url: options.url,
            apiUrl,
            dataDir: options.dataDir,
            onThisMachine: kind === 'this_machine',
          });
    const userError = toUserError(err);
    return new UserError(`url ${problem.message}`, {
      code: userError.code,
      exitCode: userError.exitCode,
      suggestions: steps,
      cause: err,
    });
  }
  return toUserError(err, {
    conflict: [
      `Delete an endpoint you no longer use: \`${svc} webhooks list\` shows their ids, \`${svc} emulator webhooks delete\` followed by one deletes it${dir ? ` (with${dir})` : ''}`,
    ],
    vault_unavailable: [
      `The emulator runs without a vault key: stop it (${svc} emulator stop${dir}) and start it again without --no-vault-key (${svc} emulator start${portArg(apiUrl)}${dir})`,
    ],
  });
}
