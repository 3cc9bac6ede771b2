// How many lanes may send at once (the worker's maxLanes). A lane holds a slot while it sends: from its start until
// its last attempt is made (not while its records are written), and not while it waits on a scaled clock for a
// delivery it claimed ahead. Holding one through those waits kept endpoints due a moment later from being claimed
// until a lane ended, so their attempts went out late. At its instant the lane takes a slot again, after the lanes
// already in line for one if every slot is sending. The worker keeps at most twice maxLanes lanes in all.
export class LaneSlots {
  #held = 0;
  readonly #queue: (() => void)[] = [];

  constructor(readonly max: number) {}

  /** Slots neither held nor promised to a waiting lane. */
  free(): number {
    return Math.max(0, this.max - this.#held - this.#queue.length);
  }

  /** A lane the worker starts takes a free slot (the worker starts one only when free() says so). */
  take(): void {
    this.#held += 1;
  }

  /**
   * A lane ends or begins waiting: its slot goes to the first lane in line for one, else back to the worker (true:
   * the worker may fill it).
   */
  give(): boolean {
    const next = this.#queue.shift();
    if (next) {
      next();
      return false;
    }
    this.#held -= 1;
    return true;
  }

  /** A lane's instant came: it takes a slot, after the lanes already in line when none is free. */
  acquire(): Promise<void> {
    if (this.takeFree()) return Promise.resolve();
    return new Promise((resolve) => this.#queue.push(resolve));
  }

  /** Takes a slot if one is free and no lane is in line for one; false (nothing taken) otherwise. */
  takeFree(): boolean {
    if (this.#held >= this.max || this.#queue.length > 0) return false;
    this.#held += 1;
    return true;
  }
}
