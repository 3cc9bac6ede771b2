// `svc emulator webhooks create`: adds an endpoint; its signing secret is shown exactly once.
import {EmulatorControlError} from '../../../client/errors.js';
import {currentSvcCommand} from '../../../lib/invocation.js';
import {dataDirArg, localUrlWaysOut} from '../../../ui/emulator.js';
import {toUserError} from '../../../lib/error-mapper.js';
import {type ConnectOptions, connectControl} from '../connect.js';

export interface CreateWebhookOptions extends ConnectOptions {
  url: string;
  events: string[];
  description?: string;
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

export async function createWebhook(options: CreateWebhookOptions): Promise<CreatedWebhookAt> {
  const {control, info} = await connectControl(options);
  try {
    const w = await control.createWebhook({
      url: options.url,
      events: options.events,
      description: options.description,
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
    if (isLocalUrlRefusal(err))
      userError.suggestions.push(...localUrlWaysOut({svc, url: options.url, dataDir: options.dataDir}));
    else if (userError.code === 'conflict')
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
