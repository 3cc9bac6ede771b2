// An endpoint's delivery chaos, for the control route and `svc emulator webhooks chaos`: read it, set it, turn it
// off. Settings are checked here; the plan they go into is the running delivery engine's.
import {isId} from '../../definitions.js';
import type {EndpointChaos} from '../../schemas/emulator.js';
import type {EmulatorContext} from '../context.js';
import {
  type ChaosPlan,
  type ChaosSettings,
  ChaosSettingsError,
  checkChaosSettings,
} from '../delivery/chaos.js';
import {invalidInput, notFound} from '../operation-error.js';

export type {EndpointChaos};

async function checkEndpoint(ctx: EmulatorContext, endpointId: string): Promise<void> {
  const found = isId('webhookEndpoint', endpointId)
    ? await ctx.repos.endpoints.get(undefined, endpointId)
    : undefined;
  if (!found) throw notFound('no webhook endpoint with this id');
}

function describe(plan: ChaosPlan, endpointId: string, own: boolean): EndpointChaos {
  const chaos = plan.settingsFor(endpointId);
  return {endpoint_id: endpointId, chaos, source: chaos === null ? 'none' : own ? 'endpoint' : 'emulator'};
}

export async function getEndpointChaos(
  ctx: EmulatorContext,
  plan: ChaosPlan,
  input: {endpointId: string},
): Promise<EndpointChaos> {
  await checkEndpoint(ctx, input.endpointId);
  return describe(plan, input.endpointId, plan.hasOwn(input.endpointId));
}

/** Sets the endpoint's chaos (its decisions start again from the seed); `null` turns it off for the endpoint. */
export async function setEndpointChaos(
  ctx: EmulatorContext,
  plan: ChaosPlan,
  input: {endpointId: string; settings: unknown},
): Promise<EndpointChaos> {
  let settings: ChaosSettings | null = null;
  if (input.settings !== null) {
    try {
      settings = checkChaosSettings(input.settings);
    } catch (err) {
      if (err instanceof ChaosSettingsError) throw invalidInput([{field: 'chaos', message: err.message}]);
      throw err;
    }
  }
  await checkEndpoint(ctx, input.endpointId);
  plan.set(input.endpointId, settings);
  return describe(plan, input.endpointId, true);
}
