#!/usr/bin/env node
// The entry point. It takes SIGHUP before anything else: until a process handles SIGHUP, the signal's default action
// ends it (exit 129), and loading the modules, reading the config and binding the port take a second or more on a
// large fleet, during which a config-management tool or a `systemctl reload` may well send one. So this module imports
// nothing that takes time: it handles SIGHUP, then loads the CLI (cli.ts), which reloads once for the SIGHUPs of the
// start-up as soon as the exporter runs. SIGTERM and SIGINT keep their default action until then (stop at once).
import type { EarlySignals } from './cli.js';

/** Handles SIGHUP now, holding the ones that come until the CLI takes it over (or gives it back). */
function takeSighup(): EarlySignals {
  let asked = false;
  let onHup: (() => void) | undefined;
  const hup = (): void => {
    if (onHup) onHup();
    else asked = true;
  };
  process.on('SIGHUP', hup);
  return {
    get reloadAsked() {
      return asked;
    },
    handOver(handler) {
      onHup = handler;
      if (asked) {
        asked = false;
        handler();
      }
    },
    release() {
      process.off('SIGHUP', hup);
    },
  };
}

const early = takeSighup();
const { main } = await import('./cli.js');
main(process.argv.slice(2), early).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`avalanchego-exporter: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
