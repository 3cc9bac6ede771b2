// `checkpoint:` and `rewind:` steps: the org's rows, clock and pending schedule saved under a name and restored,
// through the emulator's per-org checkpoint routes (POST /_emulator/orgs/:id/checkpoints {name}, POST
// /_emulator/orgs/:id/checkpoints/:name/rewind) with the org's own control token.
import {EmulatorControlError} from '@svc/client';
import type {OrgCheckpoints} from './world.js';

export function orgCheckpoints(connection: {url: string; token: string}, orgId: string): OrgCheckpoints {
  const base = `${connection.url.replace(/\/+$/, '')}/_emulator/orgs/${encodeURIComponent(orgId)}/checkpoints`;
  const post = async (path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${connection.token}`,
        ...(body === undefined ? {} : {'content-type': 'application/json'}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await res.text();
    if (res.ok) return;
    let message = `the emulator answered ${res.status}`;
    let code = 'error';
    try {
      const envelope = (JSON.parse(text) as {error?: {message?: string; code?: string}}).error;
      message = envelope?.message ?? message;
      code = envelope?.code ?? code;
    } catch {
      // Not the emulator's error shape: the status says it.
    }
    if (res.status === 404 && code !== 'not_found') {
      message = 'this emulator keeps no per-org checkpoints (its version has no checkpoint routes)';
    }
    throw new EmulatorControlError(message, res.status, code);
  };
  return {
    checkpoint: (name) => post('', {name}),
    rewind: (name) => post(`/${encodeURIComponent(name)}/rewind`),
  };
}
