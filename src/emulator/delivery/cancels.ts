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
      if (options.abort) for (const request of this.#sending.get(id) ?? []) request.abort();
    }
  }

  /** A request to the endpoint starts: its signal says when a cancellation cut it short; `done` once it ended. */
  sending(endpointId: string): {signal: AbortSignal; done(): void} {
    const request = new AbortController();
    let requests = this.#sending.get(endpointId);
    if (!requests) {
      requests = new Set();
      this.#sending.set(endpointId, requests);
    }
    requests.add(request);
    return {
      signal: request.signal,
      done: () => {
        requests.delete(request);
        if (requests.size === 0 && this.#sending.get(endpointId) === requests)
          this.#sending.delete(endpointId);
      },
    };
  }

  /** True when the endpoint was deleted after `mark` was taken: its delivery must not be attempted. */
  cancelled(endpointId: string, mark: number): boolean {
    const at = this.#cancelledAt.get(endpointId);
    return at !== undefined && at > mark;
  }
}

/**
 * A lease owner names the worker it belongs to before its first `:` (a resend's lease is `<worker>:resend_…`), so
 * whoever deletes an endpoint knows which processes may still hold its deliveries.
 */
export function workerOfLeaseOwner(owner: string): string {
  return owner.split(':')[0] as string;
}
