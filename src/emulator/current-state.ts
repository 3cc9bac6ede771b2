// What loading or resetting the state changes of a running emulator: its default org, and an epoch that moves on
// each time (and when an org is deleted), so whatever a surface cached of the old state (the account page's
// sessions) is dropped. The one part of the context that changes after it is built, and it changes only through
// `loaded` and `forget`.

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

  /** Moves on each time the state is replaced or loaded (reset, an import, a load), or an org is deleted. */
  get epoch(): number {
    return this.#epoch;
  }

  /** The state was loaded or replaced: `orgId` is the default org now, and the epoch moves on. */
  loaded(orgId: string): void {
    this.#orgId = orgId;
    this.#epoch += 1;
  }

  /** Part of the state went (an org deleted): the epoch moves on, so nothing cached of it is served again. */
  forget(): void {
    this.#epoch += 1;
  }
}
