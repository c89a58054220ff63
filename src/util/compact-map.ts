/**
 * Gives `map` a hash table sized for the entries it holds now: the same object, the same entries in the same order.
 *
 * V8 keeps a Map's deleted entries in its table until the table is rebuilt, and rebuilds it only when an insert finds
 * it full (twice as large unless half of it is deleted) or a delete leaves it under a quarter full. A Map whose keys
 * churn, a delete for most inserts, so settles at twice the table its entries need, or more: its memory follows the
 * churn's high-water mark rather than what it holds (issue 35's soak: the label table's 12,076 sets in a table for
 * 32,768 by the first return to the original targets, 18 minutes in). `clear()` gives the Map a new smallest table,
 * and setting the entries again grows it to the size they need. O(size): for sweeps and reloads, which delete in bulk,
 * not for a hot path.
 */
export function compactMap<K, V>(map: Map<K, V>): void {
  const entries = [...map];
  map.clear();
  for (const [key, value] of entries) map.set(key, value);
}
