// `svc emulator webhooks delete`: removes an endpoint; it receives nothing more.
import {type At, type ConnectOptions, withControlAt} from '../connect.js';

export function deleteWebhook(
  options: ConnectOptions & {id: string},
): Promise<At<{id: string; deleted: true}>> {
  return withControlAt(options, async (control) => {
    await control.deleteWebhook(options.id);
    return {id: options.id, deleted: true as const};
  });
}
