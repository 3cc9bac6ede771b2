// Deleted means gone: endpoints deleted (alone or with their org) while deliveries of theirs were claimed, read
// ahead or about to be resent here. Whatever reads deliveries to attempt takes a mark first; an attempt is made
// only if its endpoint was not cancelled after its mark, checked just before the request starts, with no wait in
// between. So once cancel() has returned, no new signed request for those endpoints starts in this process (one
// already in flight may finish). An endpoint id that comes back later (a snapshot loaded again) is read after its
// cancellation, under a later mark, and is attempted as any other.

export class DeliveryCancels {
  #count = 0;
  readonly #cancelledAt = new Map<string, number>();

  /** Taken before deliveries are read to be attempted, and kept with them. */
  mark(): number {
    return this.#count;
  }

  /** The endpoints are gone: nothing read of them before now is attempted any more. */
  cancel(endpointIds: Iterable<string>): void {
    this.#count += 1;
    for (const id of endpointIds) this.#cancelledAt.set(id, this.#count);
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
