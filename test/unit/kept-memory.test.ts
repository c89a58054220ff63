// Memory the exporter keeps on purpose has a stated bound, in entries and characters, and stays within it however
// long the churn goes on. The platform source's 7 days of validator sets (behind "no longer a validator"): filled past
// its window with a node whose ID changes and which leaves and joins its sets. The debug trace cache: test/e2e/
// debug-state.test.ts (MAX_DEBUG_TRACES × MAX_DEBUG_TRACE_CHARS).
import { describe, expect, it } from 'vitest';
import {
  NO_LONGER_WINDOW_SECONDS,
  PLATFORM_MEMORY_ENTRY_CHARS,
  platformMemoryBound,
  rememberPlatform,
  type PlatformMemory,
  type PlatformSnapshot,
} from '../../src/sources/platform.js';
import { PRIMARY_NETWORK_ID, cb58Encode, nodeIdFor, prng, sha256 } from '../../src/simulator/ids.js';

const staker = { kind: 'staker' as const, weight: 2e12, startSeconds: 100, endSeconds: 1e10 };

describe('the platform memory (7 days of validator sets)', () => {
  it('holds one entry a set asked about and at most PLATFORM_MEMORY_ENTRY_CHARS each, over 10 days of churn', () => {
    const sets = [PRIMARY_NETWORK_ID, ...[1, 2, 3].map((i) => cb58Encode(sha256(`subnet:${i}`)))];
    const bound = platformMemoryBound(sets.length);
    const random = prng(35);
    let memory: PlatformMemory | undefined;
    let nodeId = nodeIdFor('n:0');
    const ids = new Set<string>();
    const lastIn = new Map<string, number>();
    // A poll a minute for 10 days: a new node ID every 30 minutes, and each set joined or left at random; for the
    // last 8 days the node is never in the third L1 again.
    for (let minute = 0; minute < 10 * 1440; minute++) {
      const now = 1_000_000 + minute * 60;
      if (minute % 30 === 0) ids.add((nodeId = nodeIdFor(`n:${minute}`)));
      const subnets = sets.map((subnet, i) => {
        const member = random() < 0.5 && !(i === 3 && minute >= 2 * 1440);
        if (member) lastIn.set(subnet, now);
        return member ? { subnet, entry: staker } : { subnet };
      });
      const s: PlatformSnapshot = { nodeId, methods: { 'platform.getCurrentValidators': 'ok' }, subnets };
      memory = rememberPlatform(memory, s, now);
      expect(memory.validated.length).toBeLessThanOrEqual(bound.entries);
      for (const v of memory.validated) expect(v.subnet.length + v.nodeId.length).toBeLessThanOrEqual(PLATFORM_MEMORY_ENTRY_CHARS);
      expect(memory.validated.reduce((n, v) => n + v.subnet.length + v.nodeId.length, 0)).toBeLessThanOrEqual(bound.chars);
    }
    expect(ids.size).toBe(480);
    // The third L1, last seen 8 days ago, is forgotten; the others are kept under their last node ID and time.
    const end = 1_000_000 + (10 * 1440 - 1) * 60;
    expect(end - (lastIn.get(sets[3] ?? '') ?? 0)).toBeGreaterThan(NO_LONGER_WINDOW_SECONDS);
    expect(memory?.validated.map((v) => v.subnet).sort()).toEqual(sets.slice(0, 3).sort());
    for (const v of memory?.validated ?? []) expect(v.lastSeenSeconds).toBe(lastIn.get(v.subnet));
  });
});
