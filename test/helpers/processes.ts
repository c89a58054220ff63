// Child processes a test starts: kept with the tail of their output, stopped by PID
// (SIGTERM, then SIGKILL after a deadline).
import { spawn, type ChildProcess } from 'node:child_process';

export interface Proc {
  name: string;
  child: ChildProcess;
  output: string[];
  /** Set when the test stops the process itself: its exit is not a failure. */
  expectedExit?: boolean;
}

export class ProcessGroup {
  readonly procs: Proc[] = [];

  constructor(private readonly cwd: string) {}

  start(name: string, cmd: string, args: string[]): Proc {
    const child = spawn(cmd, args, { cwd: this.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const p: Proc = { name, child, output: [] };
    const keep = (b: Buffer) => {
      p.output.push(b.toString('utf8'));
      if (p.output.length > 400) p.output.splice(0, 100);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.procs.push(p);
    return p;
  }

  async stop(p: Proc, killAfterMs = 10_000): Promise<void> {
    const { child } = p;
    p.expectedExit = true;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, killAfterMs);
    await exited;
    clearTimeout(timer);
  }

  /** Stops every process, the last started first. */
  async stopAll(): Promise<void> {
    for (const p of [...this.procs].reverse()) await this.stop(p);
  }

  /** Each process's state and the tail of its output, for failure messages. */
  logs(tailChars = 3000): string {
    return this.procs
      .map(
        (p) =>
          `----- ${p.name} (pid ${p.child.pid}, exit ${p.child.exitCode ?? p.child.signalCode ?? 'running'})\n${p.output.join('').slice(-tailChars)}`,
      )
      .join('\n');
  }
}
