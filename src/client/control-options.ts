// The options of the control client's clock moves and waits (emulator-control.ts).
import type {DeliveryStatus} from '../definitions.js';

/** Options of advanceClock and setClock. */
export interface ClockMoveOptions {
  /** Moves this org's own clock (`org_…`) and no other's; without it, the emulator's clock. */
  org?: string;
  /** Resolves only once the attempts the move made due have been made and recorded. */
  settle?: boolean;
}

/** What waitForDelivery waits for: one delivery (by id, or of an event), in a status or with a number of attempts. */
export type WaitForDeliveryOptions = (
  | {event_id: string; delivery_id?: undefined}
  | {delivery_id: string; event_id?: undefined}
) & {
  /** Wait until it is in this status (without status or attempts: until one attempt is recorded). */
  status?: DeliveryStatus;
  /** Wait until it has at least this many attempts. */
  attempts?: number;
  /** Milliseconds the emulator holds the answer at most (default and limit: src/definitions.ts); then 408 timeout. */
  timeout?: number;
};
