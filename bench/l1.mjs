// The L1 set's cost (issue 30): 3 L1s of 100 validators each, watched from 10 vantages, next to the same fleet without
// `l1s:`. The 10 vantages are loopback fake nodes in this process (the L1s' P-Chain answers and each chain's
// validators API, subnet-evm's encoding; every other path 404); the exporter runs as its own process (dist/main.js)
// with the shipped sources at their defaults. Each mode runs `--duration` seconds at an L1 interval of `--interval`
// seconds; the figures: requests a second the nodes got, exporter CPU a second and per L1 poll (the difference with
// the run without), and the series /metrics serves. Prints figures and, as its last line, one JSON object.
//
//   node bench/l1.mjs                         3 L1s × 100 validators × 10 vantages, 90 s a mode, L1s every 15 s
//   node bench/l1.mjs --duration=30 --interval=5
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Procs, cpuSeconds, freePort, sleep, waitFor } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '90' },
    interval: { type: 'string', default: '15' },
    l1s: { type: 'string', default: '3' },
    validators: { type: 'string', default: '100' },
    vantages: { type: 'string', default: '10' },
  },
});
const DURATION_S = Number(opts.duration);
const INTERVAL_S = Number(opts.interval);
const L1S = Number(opts.l1s);
const VALIDATORS = Number(opts.validators);
const VANTAGES = Number(opts.vantages);

// CB58 of 32 bytes: the IDs need only be well-formed for the config check.
import { createHash } from 'node:crypto';
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** @param {Buffer} bytes */
function cb58(bytes) {
  const raw = Buffer.concat([bytes, createHash('sha256').update(bytes).digest().subarray(-4)]);
  let n = BigInt(`0x${raw.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET.charAt(Number(n % 58n)) + out;
    n /= 58n;
  }
  for (const b of raw) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}
const id = (/** @type {string} */ text) => cb58(createHash('sha256').update(text).digest());
const l1s = Array.from({ length: L1S }, (_, i) => ({
  subnet: id(`subnet-${i}`),
  chain: id(`chain-${i}`),
  validators: Array.from({ length: VALIDATORS }, (_, j) => ({
    validationID: id(`v-${i}-${j}`),
    nodeID: `NodeID-${id(`n-${i}-${j}`).slice(0, 33)}`,
    weight: 100 + j,
  })),
}));

/**
 * @param {string | undefined} method
 * @param {{ subnetID?: string } | undefined} params
 * @param {string} path
 */
function answer(method, params, path) {
  if (path === '/ext/bc/P') {
    if (method === 'platform.getHeight') return { height: '1000' };
    if (method === 'platform.getValidatorFeeState') return { excess: 0, price: 512, timestamp: '2026-11-26T12:00:00Z' };
    if (method === 'platform.getBlockchains')
      return { blockchains: l1s.map((l, i) => ({ id: l.chain, name: `l1-${i}`, subnetID: l.subnet, vmID: 'x' })) };
    if (method === 'platform.getCurrentValidators') {
      const l = l1s.find((x) => x.subnet === params?.subnetID);
      if (!l) return { validators: [] };
      return {
        validators: l.validators.map((v) => ({
          nodeID: v.nodeID,
          weight: String(v.weight),
          startTime: '1793990680',
          validationID: v.validationID,
          balance: '1000000000',
          minNonce: '0',
        })),
      };
    }
  }
  const l = l1s.find((x) => path === `/ext/bc/${x.chain}/validators`);
  if (l && method === 'validators.getCurrentValidators')
    return {
      validators: l.validators.map((v) => ({
        ...v,
        startTimestamp: 1793990680,
        isActive: true,
        isL1Validator: true,
        isConnected: true,
        uptimePercentage: 99.5,
        uptimeSeconds: 1000,
      })),
    };
  return undefined;
}

let requests = 0;
const servers = await Promise.all(
  Array.from({ length: VANTAGES }, async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (/** @type {Buffer} */ c) => (body += c.toString()));
      req.on('end', () => {
        requests++;
        /** @type {{ method?: string, params?: { subnetID?: string }, id?: number }} */
        let rpc;
        try {
          /** @type {unknown} */ const parsed = JSON.parse(body);
          rpc =
            typeof parsed === 'object' && parsed !== null
              ? /** @type {{ method?: string, params?: { subnetID?: string }, id?: number }} */ (parsed)
              : {};
        } catch {
          rpc = {};
        }
        const result = answer(rpc.method, rpc.params, (req.url ?? '').split('?')[0]);
        if (result === undefined) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', result, id: rpc.id ?? 1 }));
      });
    });
    const port = await freePort();
    await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${port}` };
  }),
);

const dir = mkdtempSync(join(tmpdir(), 'bench-l1-'));
const procs = new Procs();
/** One mode: the exporter with or without the L1s, `DURATION_S` seconds after its first polls. */
async function run(withL1s) {
  const config = join(dir, `${withL1s ? 'with' : 'without'}.yaml`);
  writeFileSync(
    config,
    `defaults:\n  platform: { subnets: [${l1s.map((l) => l.subnet).join(', ')}] }\ntargets:\n${servers.map((s, i) => `  - name: v${i}\n    url: ${s.url}\n`).join('')}${
      withL1s ? `l1s:\n${l1s.map((l) => `  - subnet: ${l.subnet}\n    interval: ${INTERVAL_S}s\n`).join('')}` : ''
    }`,
  );
  const port = await freePort();
  const exp = procs.start(`exporter (${withL1s ? 'with' : 'without'} l1s)`, process.execPath, [
    'dist/main.js',
    `--config.file=${config}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/-/ready`)).status === 200, 'the exporter ready', 60_000, exp);
  await sleep(INTERVAL_S * 1000);
  const cpu0 = cpuSeconds(exp.pid);
  const req0 = requests;
  const t0 = performance.now();
  await sleep(DURATION_S * 1000);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(exp.pid) - cpu0;
  const got = requests - req0;
  const text = await metrics();
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  // The L1 set's block (first label subnet), not the chain_info source's P, X and C of every node.
  const l1Series = text.split('\n').filter((l) => /^avalanchego_(l1_set_|chain_info\{subnet=)/.test(l)).length;
  await procs.stop(exp);
  return { requests_per_s: got / seconds, cpu_per_s: cpu / seconds, series, l1_series: l1Series };
}

try {
  console.log(`L1 set benchmark: ${L1S} L1s × ${VALIDATORS} validators × ${VANTAGES} vantages, L1s every ${INTERVAL_S}s, ${DURATION_S}s a mode`);
  const without = await run(false);
  console.log(
    `without l1s: ${without.requests_per_s.toFixed(2)} requests/s, ${(without.cpu_per_s * 1000).toFixed(1)} ms CPU/s, ${without.series} series`,
  );
  const withL1s = await run(true);
  console.log(
    `with l1s:    ${withL1s.requests_per_s.toFixed(2)} requests/s, ${(withL1s.cpu_per_s * 1000).toFixed(1)} ms CPU/s, ${withL1s.series} series (${withL1s.l1_series} of the L1 set)`,
  );
  const pollsPerS = L1S / INTERVAL_S;
  const cpuPerPollMs = ((withL1s.cpu_per_s - without.cpu_per_s) / pollsPerS) * 1000;
  console.log(
    `the L1s add ${(withL1s.requests_per_s - without.requests_per_s).toFixed(2)} requests/s (expected ${((L1S * (2 * VANTAGES + 2)) / INTERVAL_S).toFixed(2)}: per poll a height and a chain read per vantage, the set and the fee from one) and ${cpuPerPollMs.toFixed(1)} ms CPU a poll of an L1`,
  );
  console.log(
    JSON.stringify({
      l1s: L1S,
      validators: VALIDATORS,
      vantages: VANTAGES,
      interval_s: INTERVAL_S,
      without,
      with: withL1s,
      cpu_per_l1_poll_ms: cpuPerPollMs,
    }),
  );
} finally {
  await procs.stopAll();
  for (const s of servers) s.server.close();
  rmSync(dir, { recursive: true, force: true });
}
