// Kept only for a caller outside the emulator (test/schemas/openapi.test.ts), which hands it to createApp: the
// delivery engine is no plugin any more but a member of the context, built before it (engine.ts), and its control
// routes are mounted by createApp itself. Goes once that caller drops it.

/** @deprecated The engine is `context.engine`; createApp mounts its routes. This adds nothing. */
export function createDeliveryPlugin(): {readonly name: 'delivery'} {
  return {name: 'delivery'};
}
