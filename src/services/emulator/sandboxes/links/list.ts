// `svc emulator sandboxes links list`: the default org's links (or one sandbox's), newest first, each with its status.
import type {SandboxLink} from '../../../../schemas/index.js';
import {type ConnectOptions, withControl} from '../../connect.js';

export interface ListLinksOptions extends ConnectOptions {
  sandboxId?: string;
}

export interface LinksAt {
  links: SandboxLink[];
  /** The emulator's clock (manual or real), which "created 3 days ago" counts from. */
  nowMs: number;
  /** The emulator they were read from. */
  apiUrl: string;
}

export function listLinks(options: ListLinksOptions): Promise<LinksAt> {
  const filter = options.sandboxId === undefined ? {} : {sandbox_id: options.sandboxId};
  return withControl(options, async (control, info) => {
    const [{data}, clock] = await Promise.all([control.listLinks(filter), control.clock()]);
    return {links: data, nowMs: Date.parse(clock.now), apiUrl: info.api_url};
  });
}
