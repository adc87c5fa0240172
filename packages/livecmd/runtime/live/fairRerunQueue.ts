/**
 * Groups owed a re-run, started in turn by holder (whom their subscriptions count against, as in
 * `SubscriptionLedger`): each holder's groups wait in its own lane, in the order the writes
 * reached them, and `take` gives each lane with a group waiting one turn in round-robin. A write
 * that re-runs 16,384 of one holder's groups and one of another's starts the other's second, not
 * after the 16,384: a holder's next group starts after at most one of each other holder with
 * groups waiting. A group several holders watch waits in each of their lanes and starts, once,
 * at whichever of their turns comes first.
 */
export class FairRerunQueue<T> {
  /** Each holder's lane, in turn order: the holder whose turn it is first. */
  readonly #lanes = new Map<string | undefined, Set<T>>();
  /** Each group waiting, and the holders in whose lanes it waits. */
  readonly #waiting = new Map<T, readonly (string | undefined)[]>();

  get size(): number {
    return this.#waiting.size;
  }

  has(group: T): boolean {
    return this.#waiting.has(group);
  }

  /**
   * Queues `group` in the lane of each of `holders` (`undefined`: the lane of subscriptions that
   * count against no holder, where a group none watches yet waits too). A group already waiting
   * keeps its places.
   */
  add(group: T, holders: Iterable<string | undefined>): void {
    if (this.#waiting.has(group)) return;
    const lanes = [...new Set(holders)];
    if (lanes.length === 0) lanes.push(undefined);
    this.#waiting.set(group, lanes);
    for (const holder of lanes) {
      const lane = this.#lanes.get(holder);
      if (lane) lane.add(group);
      else this.#lanes.set(holder, new Set([group]));
    }
  }

  /** The first group of the holder whose turn it is, out of every lane; that holder goes last. */
  take(): T | undefined {
    const turn = this.#lanes.entries().next();
    if (turn.done) return undefined;
    const [holder, lane] = turn.value;
    // A lane is dropped when it empties: the one whose turn it is has a first group.
    const group = lane.values().next().value as T;
    this.#lanes.delete(holder);
    for (const each of this.#waiting.get(group)!) {
      const other = each === holder ? lane : this.#lanes.get(each);
      other?.delete(group);
      if (other !== lane && other?.size === 0) this.#lanes.delete(each);
    }
    this.#waiting.delete(group);
    if (lane.size > 0) this.#lanes.set(holder, lane);
    return group;
  }
}
