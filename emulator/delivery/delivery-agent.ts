// The dispatcher every delivery attempt goes through. Apart from the address policy so that undici, which the
// emulator needs only once something is delivered, is loaded on first use rather than at start-up.
import {Agent, type Dispatcher} from 'undici';
import {type LookupCallback, publicOnlyLookup, type Resolver, systemResolver} from './address-policy.js';

export interface DeliveryAgentOptions {
  allowLocalEndpoints: boolean;
  resolver?: Resolver;
}

/** The dispatcher every attempt goes through: keep-alive, and public-only connects unless local endpoints are allowed. */
export function createDeliveryAgent(options: DeliveryAgentOptions): Dispatcher {
  if (options.allowLocalEndpoints) {
    if (!options.resolver) return new Agent({keepAliveTimeout: 4_000});
    const resolve = options.resolver;
    return new Agent({
      keepAliveTimeout: 4_000,
      connect: {
        lookup: (hostname: string, opts: {all?: boolean}, cb: LookupCallback) => {
          resolve(hostname).then(
            (list) => (opts?.all ? cb(null, list) : cb(null, list[0]?.address ?? '', list[0]?.family ?? 4)),
            (err: NodeJS.ErrnoException) => cb(err, '', 0),
          );
        },
      } as never,
    });
  }
  return new Agent({
    keepAliveTimeout: 4_000,
    connect: {lookup: publicOnlyLookup(options.resolver ?? systemResolver)} as never,
  });
}
