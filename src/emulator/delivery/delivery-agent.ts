// The dispatcher every delivery attempt goes through. Apart from the address policy so that undici, which the
// emulator needs only once something is delivered, is loaded on first use rather than at start-up.
import {Agent, type Dispatcher} from 'undici';
import {anyAddressLookup, publicOnlyLookup, type Resolver, systemResolver} from '../net/address-policy.js';

export interface DeliveryAgentOptions {
  allowLocalEndpoints: boolean;
  resolver?: Resolver;
}

/** The dispatcher every attempt goes through: keep-alive, and public-only connects unless local endpoints are allowed. */
export function createDeliveryAgent(options: DeliveryAgentOptions): Dispatcher {
  if (options.allowLocalEndpoints && !options.resolver) return new Agent({keepAliveTimeout: 4_000});
  const resolve = options.resolver ?? systemResolver;
  const lookup = options.allowLocalEndpoints ? anyAddressLookup(resolve) : publicOnlyLookup(resolve);
  return new Agent({keepAliveTimeout: 4_000, connect: {lookup} as never});
}
