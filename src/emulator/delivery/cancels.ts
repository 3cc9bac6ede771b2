// Deleted means gone: endpoints deleted (alone or with their org) while deliveries of theirs were claimed, read
// ahead or about to be resent here. Whatever reads deliveries to attempt takes a mark first; an attempt is made
// only if its endpoint was not cancelled after its mark, checked just before the request starts, with no wait in
// between. So once cancel() has returned, no new signed request for those endpoints starts in this process (one
// already in flight may finish). An endpoint id that comes back later (a snapshot loaded again) is read after its
// cancellation, under a later mark, and is attempted as any other. A rewound org's endpoints are cancelled the
// same way, and their requests on the wire are aborted as well.

export class DeliveryCancels {
  #count = 0;
  readonly #cancelledAt = new Map<string, number>();
  /** The requests on the wire now, by endpoint: a cancellation that aborts cuts them short. */
  readonly #sending = new Map<string, Set<AbortController>>();
  /** The lanes waiting for a delivery's due instant now, by endpoint: any cancellation ends their wait. */
  readonly #waiting = new Map<string, Set<AbortController>>();

  /** Taken before deliveries are read to be attempted, and kept with them. */
  mark(): number {
    return this.#count;
  }

  /**
   * The endpoints are gone: nothing read of them before now is attempted any more. With `abort` (an org rewound)
   * their requests on the wire are cut short too, so none is recorded.
   */
  cancel(endpointIds: Iterable<string>, options: {abort?: boolean} = {}): void {
    this.#count += 1;
    for (const id of endpointIds) {
      this.#cancelledAt.set(id, this.#count);
      for (const wait of this.#waiting.get(id) ?? []) wait.abort();
      if (options.abort) for (const request of this.#sending.get(id) ?? []) request.abort();
    }
  }

  /** A request to the endpoint starts: its signal says when a cancellation cut it short; `done` once it ended. */
  sending(endpointId: string): {signal: AbortSignal; done(): void} {
    return watch(this.#sending, endpointId);
  }

  /** A lane waits before the endpoint's next attempt: its signal says when the endpoint was cancelled meanwhile. */
  waiting(endpointId: string): {signal: AbortSignal; done(): void} {
    return watch(this.#waiting, endpointId);
  }

  /** True when the endpoint was deleted after `mark` was taken: its delivery must not be attempted. */
  cancelled(endpointId: string, mark: number): boolean {
    const at = this.#cancelledAt.get(endpointId);
    return at !== undefined && at > mark;
  }
}

/** An abort controller kept under `endpointId` in `by` until `done`. */
function watch(
  by: Map<string, Set<AbortController>>,
  endpointId: string,
): {signal: AbortSignal; done(): void} {
  const controller = new AbortController();
  let all = by.get(endpointId);
  if (!all) {
    all = new Set();
    by.set(endpointId, all);
  }
  all.add(controller);
  return {
    signal: controller.signal,
    done: () => {
      all.delete(controller);
      if (all.size === 0 && by.get(endpointId) === all) by.delete(endpointId);
    },
  };
}

/**
 * A lease owner names the worker it belongs to before its first `:` (a resend's lease is `<worker>:resend_…`), so
 * whoever deletes an endpoint knows which processes may still hold its deliveries.
 */
export function workerOfLeaseOwner(owner: string): string {
  return owner.split(':')[0] as string;
}
