// What a page shows once after a form: a secret just made, or a notice. Kept in memory from the post to the next
// view of the same page by the same session, no longer, and read on the emulator's clock.
import type {NewSecret} from '../views/keys.js';
import type {NewEndpointSecret} from '../views/webhooks.js';

/** The page a flash waits for. */
export type FlashPage = 'keys' | 'webhooks' | 'delivery';

export type Flash =
  | {kind: 'key'; created: NewSecret}
  | {kind: 'endpoint'; created: NewEndpointSecret}
  | {kind: 'notice'; text: string};

/** A flash not picked up by the page it was made for within this time is dropped. */
export const FLASH_KEPT_MS = 10 * 60_000;
/** Flashes held at most: one nobody came back for is dropped oldest first. */
export const FLASHES_HELD = 1000;

/** The session a flash belongs to, by the hash of its id. */
interface Holder {
  session: {idHash: string};
}

export class Flashes {
  readonly #held = new Map<string, {page: FlashPage; flash: Flash; at: number}>();

  constructor(private readonly nowMs: () => number) {}

  /** The flash for this page, taken: a reload no longer has it. */
  take(s: Holder, page: FlashPage): Flash | undefined {
    const held = this.#held.get(s.session.idHash);
    if (!held || held.page !== page) return undefined;
    this.#held.delete(s.session.idHash);
    return this.nowMs() - held.at < FLASH_KEPT_MS ? held.flash : undefined;
  }

  put(s: Holder, page: FlashPage, flash: Flash): void {
    if (this.#held.size >= FLASHES_HELD) this.#held.delete(this.#held.keys().next().value as string);
    this.#held.set(s.session.idHash, {page, flash, at: this.nowMs()});
  }

  /** Forgets the session's flash (it signed out). */
  drop(s: Holder): void {
    this.#held.delete(s.session.idHash);
  }
}
