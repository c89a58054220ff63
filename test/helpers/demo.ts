// The demo (`node dist/main.js demo`) as a process for tests: it listens on a port the kernel
// picks (port 0; its "exporter listening" log line says which), so no other listener of the test
// can take its port between a check and its bind. Waited for until /-/ready answers 200, with a
// failure that says why (the process exited, or how long it was waited for) and its log's tail.
import { join } from 'node:path';
import { ProcessGroup } from './processes.js';

export interface Demo {
  url: string;
  /** The process's state and the tail of its log, for failure messages. */
  logs(): string;
  stop(): Promise<void>;
}

/**
 * Starts the demo and waits for /-/ready. `readyMs` is generous: under CI the demo shares two
 * cores with other suites, and its first poll of every source of every node comes later than on
 * an idle machine (about 6 s there, 7 s with three busy loops beside it).
 */
export async function startDemo(root: string, readyMs = 90_000): Promise<Demo> {
  const group = new ProcessGroup(root);
  const proc = group.start('demo', process.execPath, [
    join(root, 'dist', 'main.js'),
    'demo',
    '--web.listen-address=127.0.0.1:0',
    '--log.format=json',
  ]);
  const started = Date.now();
  const late = (what: string) => new Error(`the demo was not ready after ${readyMs} ms: ${what}`);
  try {
    let url: string | undefined;
    for (;;) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error('the demo exited before it was ready');
      url ??= listening(proc.output.join(''));
      if (url === undefined) {
        if (Date.now() - started > readyMs) throw late('it logged no "exporter listening" line');
      } else {
        const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
        if (res?.ok === true) return { url, logs: () => group.logs(), stop: () => group.stopAll() };
        const said = res === undefined ? 'no answer' : `HTTP ${res.status}: ${(await res.text()).trim().slice(0, 200)}`;
        if (Date.now() - started > readyMs) throw late(`${url}/-/ready said ${said}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    const logs = group.logs();
    await group.stopAll();
    throw new Error(`${(err as Error).message}\n${logs}`, { cause: err });
  }
}

/** The address in the exporter's "exporter listening" JSON log line, once it is there. */
function listening(log: string): string | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('"exporter listening"')) continue;
    try {
      const address = (JSON.parse(line) as { address?: unknown }).address;
      if (typeof address === 'string') return address;
    } catch {
      // a line cut where a read ended: the next call sees it whole
    }
  }
  return undefined;
}
