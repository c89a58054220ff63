// The traced poll of /probe?debug=true: one fresh poll of every enabled source
// of a node, each request with its status, size and time, and what the parser
// made of it. It is the very poll the schedule runs (poller.ts NodePoller.bounded:
// the same deadline, admission and classified failure), traced, and changes
// nothing the node serves. Every step's text passes the node's boundary
// (NodeState.text, util/node-text.ts): a node or proxy may echo a request header
// back in its body.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import type { PollHandle } from '../rpc/deadline.js';
import type { PollContext } from '../sources/source.js';
import { oneLine, truncate } from '../util/text.js';
import type { DebugStep } from './fleet.js';
import type { NodePoller, PollOutcome } from './poller.js';

/** The longest body or parse result shown in a step. */
const MAX_SNIPPET = 600;

export async function debugPoll(poller: NodePoller, clock: Clock): Promise<DebugStep[]> {
  const { target, state: node, client } = poller;
  const t0 = performance.now();
  const steps: DebugStep[] = [];
  const note = (source: string, text: string) => {
    steps.push({ atMs: Math.round((performance.now() - t0) * 10) / 10, source, text: node.text.text(text) });
  };
  await Promise.all(
    node.sources.map(async (s) => {
      const { source } = s;
      note(source.name, `poll started (deadline ${target.timeoutMs} ms)`);
      const context = (poll: PollHandle): PollContext => ({
        target,
        signal: poll.signal,
        node,
        now: () => clock.now(),
        rpc: async (path, method, params) => {
          const started = performance.now();
          note(source.name, `POST ${target.url}${path} ${method} ${JSON.stringify(params)}`);
          try {
            const reply = await client.rpc(path, method, params, poll);
            const ms = Math.round((performance.now() - started) * 10) / 10;
            const nodeId = reply.headers['node-id'] ? `, node-id ${String(reply.headers['node-id'])}` : '';
            note(source.name, `  → HTTP ${reply.status}, ${Buffer.byteLength(reply.body)} bytes in ${ms} ms${nodeId}: ${snippet(reply.body)}`);
            return reply;
          } catch (err) {
            note(
              source.name,
              `  → no answer after ${Math.round(performance.now() - started)} ms: ${(err as Error).message}${(err as Error).cause ? ` (${String((err as { cause?: unknown }).cause)})` : ''}`,
            );
            throw err;
          }
        },
        stream: async (path, sink) => {
          const started = performance.now();
          note(source.name, `GET ${target.url}${path}`);
          let bytes = 0;
          try {
            const counted = {
              write(chunk: Buffer) {
                bytes += chunk.length;
                sink.write(chunk);
              },
            };
            const reply = await client.stream(path, counted, poll);
            const ms = Math.round((performance.now() - started) * 10) / 10;
            note(source.name, `  → HTTP ${reply.status}, ${bytes} bytes streamed in ${ms} ms${reply.body ? `: ${snippet(reply.body)}` : ''}`);
            return reply;
          } catch (err) {
            note(source.name, `  → no answer after ${Math.round(performance.now() - started)} ms: ${(err as Error).message}`);
            throw err;
          }
        },
      });
      const outcome: PollOutcome = { snapshot: undefined, error: undefined, durationSeconds: 0 };
      await poller.bounded(s, context, outcome);
      const ms = Math.round(outcome.durationSeconds * 1000);
      const { error, snapshot } = outcome;
      if (outcome.saturated) {
        // The exporter's wait, not the node: a scheduled poll would be skipped (never the node's `timeout`).
        note(
          source.name,
          `poll SKIPPED after ${ms} ms: the exporter is saturated, no request slot came free within the poll's interval (${s.intervalMs} ms); a scheduled poll would count in avalanchego_exporter_polls_skipped_total{reason="saturated"}, not as a failure of the node`,
        );
      } else if (error) {
        const kept = snapshot !== undefined ? ' (the data that did arrive is kept)' : '';
        note(source.name, `poll FAILED after ${ms} ms, reason=${error.reason}: ${error.message}${kept}`);
      } else note(source.name, `poll succeeded in ${ms} ms`);
      if (snapshot !== undefined) note(source.name, `parsed: ${snippet(JSON.stringify(snapshot))}`);
    }),
  );
  return steps;
}

/** The start of a body or parse result, on one line. */
function snippet(text: string): string {
  return truncate(oneLine(text), MAX_SNIPPET);
}
