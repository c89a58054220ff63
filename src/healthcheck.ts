// `avalanchego-exporter healthcheck`: the container's HEALTHCHECK. It asks the exporter's own
// /-/healthy at the address and scheme the exporter serves, so the Dockerfile hard-codes
// neither: without flags, it reads --web.listen-address and --web.config.file from the command
// line of the exporter process it runs beside (the container's PID 1, or the first exporter in
// /proc), and the scheme from that web config (tls_server_config: https).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';
import { DEFAULT_LISTEN_ADDRESS, parseListenAddress } from './exporter.js';
import { loadWebConfigFile } from './web/config.js';

const DEADLINE_MS = 2500;
const SUBCOMMANDS = new Set(['healthcheck', 'simulate', 'demo']);

/** The value of --name=VALUE or --name VALUE in an argv, if present. */
function flagValue(argv: string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    if (a === `--${name}`) return argv[i + 1];
  }
  return undefined;
}

export interface ServingProcess {
  /** Its arguments after the script. */
  argv: string[];
  /** Its working directory: where its relative --web.config.file is. */
  cwd: string | undefined;
}

/** The exporter serving here: PID 1 first, then the lowest PID. */
export function findExporter(procDir = '/proc'): ServingProcess | undefined {
  let pids: string[];
  try {
    pids = readdirSync(procDir).filter((p) => /^\d+$/.test(p));
  } catch {
    return undefined;
  }
  pids.sort((a, b) => Number(a) - Number(b));
  for (const pid of pids) {
    let argv: string[];
    try {
      argv = readFileSync(`${procDir}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue;
    }
    if (Number(pid) === process.pid) continue;
    const script = argv.findIndex((a) => /(^|\/)(main\.js|avalanchego-exporter)$/.test(a));
    if (script < 0) continue;
    const rest = argv.slice(script + 1);
    if (SUBCOMMANDS.has(rest[0] ?? '')) continue;
    let cwd: string | undefined;
    try {
      cwd = readlinkSync(`${procDir}/${pid}/cwd`);
    } catch {
      cwd = undefined;
    }
    return { argv: rest, cwd };
  }
  return undefined;
}

export interface HealthTarget {
  url: string;
  /** Client certificates required: the check proves the TLS handshake, not the answer. */
  handshakeOnly: boolean;
}

/** Where the exporter serves /-/healthy, from its listen address and web config file. */
export function healthTarget(listenAddress: string, webConfigFile: string | undefined): HealthTarget {
  const { host, port } = parseListenAddress(listenAddress);
  const web = webConfigFile ? loadWebConfigFile(webConfigFile) : undefined;
  const to = host === undefined || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const scheme = web?.tls ? 'https' : 'http';
  const handshakeOnly = web?.tls !== undefined && (web.tls.clientAuth === 'require-any' || web.tls.clientAuth === 'require-and-verify');
  return { url: `${scheme}://${to.includes(':') ? `[${to}]` : to}:${port}/-/healthy`, handshakeOnly };
}

function probe(target: HealthTarget): Promise<string | undefined> {
  return new Promise((resolve) => {
    const url = new URL(target.url);
    const https = url.protocol === 'https:';
    // Its own process on this machine: the certificate names the public host, not this address.
    const req = (https ? httpsRequest : httpRequest)(url, { timeout: DEADLINE_MS, ...(https ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      // 429: the exporter answers, its rate limit (web config) held this request back.
      resolve(res.statusCode === 200 || res.statusCode === 429 ? undefined : `${target.url} answered ${res.statusCode}`);
    });
    if (https && target.handshakeOnly) {
      req.on('socket', (socket) => socket.once('secureConnect', () => resolve(undefined)));
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)));
    req.on('error', (err) => resolve(`${target.url}: ${err.message}`));
    req.end();
  });
}

export async function runHealthcheck(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: { 'web.listen-address': { type: 'string' }, 'web.config.file': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`avalanchego-exporter healthcheck: ${(err as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`Usage: avalanchego-exporter healthcheck [--web.listen-address=ADDR] [--web.config.file=PATH]

Exit 0 when the exporter's /-/healthy answers, 1 otherwise (a container HEALTHCHECK). Without
flags, the address and web config are those of the exporter process running beside it.
`);
    return 0;
  }
  const serving = values['web.listen-address'] === undefined && values['web.config.file'] === undefined ? findExporter() : undefined;
  const listen = values['web.listen-address'] ?? (serving && flagValue(serving.argv, 'web.listen-address')) ?? DEFAULT_LISTEN_ADDRESS;
  const servingWebFile = serving ? flagValue(serving.argv, 'web.config.file') : undefined;
  const webFile = values['web.config.file'] ?? (servingWebFile && serving?.cwd !== undefined ? resolve(serving.cwd, servingWebFile) : servingWebFile);
  let target: HealthTarget;
  try {
    target = healthTarget(listen, webFile);
  } catch (err) {
    process.stderr.write(`avalanchego-exporter healthcheck: ${(err as Error).message}\n`);
    return 1;
  }
  const problem = await probe(target);
  if (problem) {
    process.stderr.write(`avalanchego-exporter healthcheck: unhealthy: ${problem}\n`);
    return 1;
  }
  process.stdout.write(`avalanchego-exporter healthcheck: ${target.url} healthy\n`);
  return 0;
}
