// A cache keyed by something that churns (a node ID in a request's params): an
// entry not used for a whole turn goes at the next one. Two maps, the entries used
// since the last turn and those from before it: a turn drops the older map, whose
// entries went unused for a whole turn, and starts a new one. No per-entry
// bookkeeping, so a read stays one Map lookup in the steady state (the first read
// of an entry after a turn moves it over). The owner turns it, on a period longer
// than the time between two uses of an entry in use (the Scheduler's sweep).
export class AgingMap<K, V> {
  private recent = new Map<K, V>();
  private older = new Map<K, V>();

  get(key: K): V | undefined {
    const value = this.recent.get(key);
    if (value !== undefined) return value;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.recent.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.older.delete(key);
    this.recent.set(key, value);
  }

  /** Drops the entries not used since the last turn; returns how many. */
  turn(): number {
    const dropped = this.older.size;
    this.older = this.recent;
    this.recent = new Map();
    return dropped;
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }
}
