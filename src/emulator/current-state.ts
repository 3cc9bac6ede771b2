// What loading or resetting the state changes of a running emulator: its default org, and an epoch that moves on
// each time, so whatever a surface cached of the old state (the account page's sessions) is dropped. The one part
// of the context that changes after it is built, and it changes only through `loaded`.

export class CurrentState {
  #orgId: string;
  #epoch = 0;

  constructor(orgId: string) {
    this.#orgId = orgId;
  }

  /** The org that control calls act on when they name none. */
  get orgId(): string {
    return this.#orgId;
  }

  /** Moves on each time the state is replaced or loaded (reset, an import, a load). */
  get epoch(): number {
    return this.#epoch;
  }

  /** The state was loaded or replaced: `orgId` is the default org now, and the epoch moves on. */
  loaded(orgId: string): void {
    this.#orgId = orgId;
    this.#epoch += 1;
  }
}
