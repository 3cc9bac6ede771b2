// `svc emulator webhooks delete`: removes an endpoint; it receives nothing more.
import {type ConnectOptions, withControl} from '../connect.js';

export function deleteWebhook(options: ConnectOptions & {id: string}): Promise<{id: string; deleted: true}> {
  return withControl(options, async (control) => {
    await control.deleteWebhook(options.id);
    return {id: options.id, deleted: true as const};
  });
}
