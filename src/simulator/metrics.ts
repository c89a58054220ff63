// A node's /ext/metrics (promhttp, the text format 0.0.4) in the shape of its
// release: several hundred KiB and thousands of series, as a real node's, so
// that the exporter's node_metrics source and its bench read a realistic body.
// The families are named as AvalancheGo names them:
//   - v1.7 / v1.10: the chain in the name (`avalanche_C_polls_successful`,
//     the VM's under `avalanche_C_vm_`, coreth's geth series under `eth_`);
//   - v1.11+: one namespace per part, the chain in the `chain` label
//     (chains/manager.go: `avalanche_snowman_…{chain="C"}`, the VM's under its
//     name, `avalanche_evm_eth_…`, `avalanche_subnetevm_eth_…`);
//   - v1.15 after Helicon: the C-Chain runs SAE behind transitionvm, whose
//     post-transition VM registers under `transition` (vms/transitionvm/vm.go):
//     `avalanche_evm_transition_sae_…`, `…_cchain_…`, `…_p2p_…`. A node
//     started after the switch has no coreth `eth_` series for the C-Chain, and
//     v1.15.0's SAE registers no go-ethereum bad-block counter: that family is
//     absent for the C-Chain (test/simulator/faithfulness-node-metrics.test.ts
//     checks the names against the v1.15.0 source).
// Only the families the exporter keeps move with the scenario (consensus polls,
// bad blocks); the rest are realistic filler whose counters rise with uptime.

/** What a node's metrics show of its state at one time. */
export interface MetricsState {
  /** The release's naming: chain in the name (v1.7, v1.10), in a label (v1.11+), and the C-Chain behind transitionvm (v1.15). */
  shape: 'chain-in-name' | 'labelled' | 'transition';
  /** The chains by their metrics alias (C, P, X, an L1's blockchain ID) and whether each is an EVM (coreth, subnet-evm). */
  chains: ReadonlyArray<{ alias: string; vm: 'evm' | 'subnetevm' | 'platformvm' | 'avm' }>;
  /** Seconds the process has been up (counters start at 0 at a start). */
  uptimeSeconds: number;
  /** Each chain's poll counters now. */
  polls: ReadonlyMap<string, { successful: number; failed: number }>;
  /** Each EVM chain's bad blocks now. */
  badBlocks: ReadonlyMap<string, number>;
}

const NETWORK_OPS = [
  'ping',
  'pong',
  'handshake',
  'get_peer_list',
  'peer_list',
  'get_state_summary_frontier',
  'state_summary_frontier',
  'get_accepted_state_summary',
  'accepted_state_summary',
  'get_accepted_frontier',
  'accepted_frontier',
  'get_accepted',
  'accepted',
  'get_ancestors',
  'ancestors',
  'get',
  'put',
  'push_query',
  'pull_query',
  'chits',
  'app_request',
  'app_response',
  'app_gossip',
  'app_error',
];
const SNOWMAN = [
  'blks_processing',
  'blks_accepted_count',
  'blks_accepted_sum',
  'blks_accepted_container_size_sum',
  'blks_rejected_count',
  'blks_rejected_sum',
  'blks_rejected_container_size_sum',
  'blks_built',
  'blks_issued',
  'blk_builds_failed',
  'last_accepted_height',
  'last_accepted_timestamp',
  'max_verified_height',
  'num_processing_ancestor_fetches_failed',
  'num_processing_ancestor_fetches_dropped',
  'num_processing_ancestor_fetches_succeeded',
  'num_processing_ancestor_fetches_unneeded',
  'num_missing_accepted_blocks',
  'non_verified_blks',
  'bootstrap_finished',
];
const DB_METHODS = [
  'has',
  'get',
  'put',
  'delete',
  'new_batch',
  'new_iterator',
  'compact',
  'close',
  'health_check',
  'batch_put',
  'batch_delete',
  'batch_size',
  'batch_write',
  'batch_reset',
  'batch_replay',
  'batch_inner',
  'iterator_next',
  'iterator_error',
  'iterator_key',
  'iterator_value',
  'iterator_release',
];
const GETH_TIMERS = [
  'chain_account_reads',
  'chain_account_hashes',
  'chain_account_updates',
  'chain_account_commits',
  'chain_storage_reads',
  'chain_storage_hashes',
  'chain_storage_updates',
  'chain_storage_commits',
  'chain_snapshot_account_reads',
  'chain_snapshot_storage_reads',
  'chain_snapshot_commits',
  'chain_triedb_commits',
  'chain_validation',
  'chain_execution',
  'chain_write',
  'chain_block_inserts',
  'chain_block_validations_state',
  'chain_block_trie_hash',
  'chain_acceptor_queue',
  'txpool_reheap',
  'state_snapshot_generation',
];
const GETH_COUNTERS = [
  'chain_head_block',
  'chain_head_header',
  'chain_block_gas_used_processed',
  'chain_block_gas_used_accepted',
  'chain_txs_processed',
  'chain_txs_accepted',
  'chain_acceptor_queue_size',
  'txpool_pending',
  'txpool_queued',
  'txpool_local',
  'txpool_slots',
  'txpool_valid',
  'txpool_invalid',
  'txpool_underpriced',
  'txpool_overflowed',
  'txpool_known',
  'txpool_pending_discard',
  'txpool_queued_discard',
  'trie_memcache_clean_hit',
  'trie_memcache_clean_miss',
  'trie_memcache_clean_read',
  'trie_memcache_clean_write',
  'trie_memcache_dirty_hit',
  'trie_memcache_dirty_miss',
  'rpc_requests',
  'rpc_success',
  'rpc_failure',
  'state_snapshot_bloom_error',
];
/** v1.15.0 vms/saevm: saexec/metrics.go, sae/metrics.go, cchain/metrics.go. */
const SAE = {
  sae: [
    'last_executed_height',
    'execution_queue_blocks',
    'execution_queue_gas_limit',
    'executed_gas_charged_total',
    'executed_gas_limit_total',
    'accepted_gas_limit_total',
    'last_executed_gas_time_seconds',
    'gas_time_wall_time_gap_seconds',
    'worst_case_base_fee',
    'executed_base_fee',
    'worst_case_gas_excess',
    'executed_gas_excess',
    'gas_target',
    'last_settled_height',
    'in_memory_blocks',
  ],
  cchain: ['min_block_delay_seconds'],
};
/** go-ethereum's rpc/metrics.go: a timer per method and outcome (rpc_duration_<method>_<success|failure>). */
const RPC_METHODS = [
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_sendRawTransaction',
  'eth_syncing',
  'net_version',
  'web3_clientVersion',
  'eth_baseFee',
  'eth_getBlockReceipts',
  'debug_traceTransaction',
  'txpool_status',
];
const QUANTILES = ['0.5', '0.75', '0.95', '0.99', '0.999', '0.9999'];
const BUCKETS = ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];

/** One family of the body: its name, type, help, and series (their labels) with how each moves. */
interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'summary' | 'histogram';
  help?: string;
  series: Array<{ labels: string; value: (up: number) => number }>;
}

/** A counter rising at `perSecond`, from a per-series offset so that series differ. */
const rising = (perSecond: number, salt: number) => (up: number) => Math.floor(perSecond * up * (0.8 + ((salt * 7919) % 400) / 1000));
const steady = (v: number) => () => v;

/** One unlabelled runtime series (`go_…`, `process_…`): a counter rising at `perSecond` when its name ends in `_total`, else `level`. */
const plainFamily = (prefix: string, what: string, name: string, perSecond: number, level: number): Family => ({
  name: `${prefix}_${name}`,
  type: name.endsWith('_total') ? 'counter' : 'gauge',
  help: `${what} ${name.replaceAll('_', ' ')}.`,
  series: [{ labels: '', value: name.endsWith('_total') ? rising(perSecond, name.length) : steady(level) }],
});

/**
 * The body. The filler is rebuilt from `state` (cheap: no I/O), the families the exporter keeps read their
 * values from it. Lines are written as client_golang writes them: `# HELP`, `# TYPE`, then the series sorted.
 */
export function renderNodeMetrics(state: MetricsState, filler?: MetricsFiller): string {
  const out: string[] = [];
  const written = new Set<string>();
  for (const f of families(state)) {
    written.add(f.name);
    if (f.help !== undefined) out.push(`# HELP ${f.name} ${f.help}`);
    out.push(`# TYPE ${f.name} ${f.type}`);
    for (const s of f.series) out.push(`${s.labels === '' ? f.name : `${f.name}${s.labels}`} ${formatValue(s.value(state.uptimeSeconds))}`);
  }
  // A real node's other families, as it served them (their values do not move): a body of a real node's size.
  if (filler && state.shape === 'labelled') for (const f of filler.families) if (!written.has(f.name)) out.push(f.text);
  out.push('');
  return out.join('\n');
}

/** The families of a real node's /ext/metrics that a simulated body of its release adds to its own (parseMetricsFiller). */
export interface MetricsFiller {
  readonly families: ReadonlyArray<{ readonly name: string; readonly text: string }>;
  /** Bytes and sample lines of what is kept. */
  readonly bytes: number;
  readonly series: number;
}

/** The families this simulator moves with the scenario: never taken from a recorded body, on any release. */
const MOVING = /_polls_(successful|failed)$|_eth_chain_block_bad_count$/;

/**
 * A real v1.11+ node's /ext/metrics (the text format) cut into families: a family's `# HELP`, `# TYPE` and sample
 * lines (a histogram's `_bucket`, `_sum`, `_count` with it) as one text. The families the simulator moves (consensus
 * polls, bad blocks) are left out, so that a scenario alone decides what the exporter reads. Throws, saying what,
 * on a body with no family or with a line that is not the text format.
 */
export function parseMetricsFiller(text: string, where: string): MetricsFiller {
  const families: Array<{ name: string; lines: string[] }> = [];
  let current: { name: string; lines: string[] } | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: |$)/.exec(line);
    const sample = meta ? undefined : /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})? \S+( \S+)?$/.exec(line);
    if (!meta && !sample && !line.startsWith('#'))
      throw new Error(`${where}:${i + 1}: not a line of the Prometheus text format: ${JSON.stringify(line.slice(0, 120))}`);
    const name = meta?.[2];
    if (name !== undefined && name !== current?.name) families.push((current = { name, lines: [] }));
    else if (!current) families.push((current = { name: sample?.[1] ?? '', lines: [] }));
    current.lines.push(line);
  }
  const kept = families.filter((f) => f.name !== '' && !MOVING.test(f.name)).map((f) => ({ name: f.name, text: f.lines.join('\n') }));
  if (kept.length === 0) throw new Error(`${where}: no metric family in it: expected a node's GET /ext/metrics`);
  return {
    families: kept,
    bytes: kept.reduce((n, f) => n + Buffer.byteLength(f.text) + 1, 0),
    series: kept.reduce((n, f) => n + f.text.split('\n').filter((l) => !l.startsWith('#')).length, 0),
  };
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64), as expfmt writes a value: an exponent below 1e-4 and from 1e6 on. */
function formatValue(v: number): string {
  const a = Math.abs(v);
  return v !== 0 && (a < 1e-4 || a >= 1e6) ? goExponent(v) : String(v);
}

/** 1.234567e+06 as Go writes it (the shortest digits, a two-digit exponent at least). */
function goExponent(v: number): string {
  const [mantissa, exp] = v.toExponential().split('e') as [string, string];
  const sign = exp.startsWith('-') ? '-' : '+';
  const digits = exp.replace(/^[+-]/, '').padStart(2, '0');
  return `${mantissa}e${sign}${digits}`;
}

function families(state: MetricsState): Family[] {
  const fams: Family[] = [];
  const labelled = state.shape !== 'chain-in-name';
  const chainLabel = (alias: string, more = '') => (labelled ? `{chain="${alias}"${more}}` : more === '' ? '' : `{${more.slice(1)}}`);
  /** A per-chain family: one family with a chain label (v1.11+), or one per chain with the chain in its name (v1.10). */
  const perChain = (
    namespace: string,
    metric: string,
    type: Family['type'],
    help: string,
    series: (alias: string, i: number) => Family['series'],
  ) => {
    if (labelled) {
      fams.push({ name: `avalanche_${namespace}_${metric}`, type, help, series: state.chains.flatMap((c, i) => series(c.alias, i)) });
    } else {
      const inner = namespace === 'snowman' ? '' : `${namespace}_`;
      for (const [i, c] of state.chains.entries())
        fams.push({ name: `avalanche_${c.alias}_${inner}${metric}`, type, help, series: series(c.alias, i) });
    }
  };

  // Go runtime and process: every Go program's.
  fams.push({
    name: 'go_gc_duration_seconds',
    type: 'summary',
    help: 'A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.',
    series: [...['0', '0.25', '0.5', '0.75', '1'].map((q, i) => ({ labels: `{quantile="${q}"}`, value: steady(2.1e-5 * (i + 1)) }))],
  });
  for (const g of [
    'goroutines',
    'threads',
    'memstats_alloc_bytes',
    'memstats_heap_inuse_bytes',
    'memstats_heap_idle_bytes',
    'memstats_heap_objects',
    'memstats_stack_inuse_bytes',
    'memstats_sys_bytes',
    'memstats_next_gc_bytes',
    'memstats_mallocs_total',
    'memstats_frees_total',
    'memstats_lookups_total',
    'memstats_gc_sys_bytes',
    'memstats_other_sys_bytes',
  ])
    fams.push(plainFamily('go', 'Go runtime', g, 5e4, 1_000_000 + g.length * 7919));
  for (const p of [
    'cpu_seconds_total',
    'max_fds',
    'open_fds',
    'resident_memory_bytes',
    'start_time_seconds',
    'virtual_memory_bytes',
    'network_receive_bytes_total',
    'network_transmit_bytes_total',
  ])
    fams.push(plainFamily('process', 'Process', p, 3e4, 4_000_000 + p.length));

  // The network: per message op, received and sent, compressed or not (v1.11+ labels; v1.10 names).
  for (const metric of ['msgs', 'msgs_bytes', 'msgs_failed', 'msgs_bytes_saved_count', 'msgs_bytes_saved_sum']) {
    const series = NETWORK_OPS.flatMap((op, i) =>
      ['received', 'sent'].map((io, j) => ({
        labels: `{compressed="${i % 2 === 0}",io="${io}",op="${op}"}`,
        value: rising(metric.includes('bytes') ? 2e4 : 40, i * 2 + j),
      })),
    );
    fams.push({ name: `avalanche_network_${metric}`, type: 'counter', help: `network ${metric.replaceAll('_', ' ')}`, series });
  }
  for (const g of [
    'peers',
    'peers_subnet',
    'tracked',
    'times_connected',
    'times_disconnected',
    'send_fail_rate',
    'time_since_last_msg_received',
    'time_since_last_msg_sent',
    'node_uptime_weighted_average',
    'node_uptime_rewarding_stake',
    'inbound_conn_throttler_allowed',
    'inbound_conn_throttler_rate_limited',
    'tls_conn_rejected',
    'num_useless_peerlist_bytes',
    'peer_connected_duration_average',
  ])
    fams.push({
      name: `avalanche_network_${g}`,
      type: 'gauge',
      help: `network ${g.replaceAll('_', ' ')}`,
      series: [{ labels: '', value: steady(1_700 + g.length) }],
    });
  fams.push({
    name: 'avalanche_network_msg_latency_seconds',
    type: 'histogram',
    help: 'time to send a message',
    series: [
      ...BUCKETS.map((le, i) => ({ labels: `_bucket{le="${le}"}`, value: rising(10 * (i + 1), i) })),
      { labels: '_sum', value: rising(3, 1) },
      { labels: '_count', value: rising(120, 2) },
    ],
  });

  // The handler of each chain: messages and their handling time per op.
  for (const metric of ['messages', 'message_handling_time', 'locking_time', 'expired', 'dropped'])
    perChain(
      'handler',
      metric,
      metric === 'messages' || metric === 'expired' || metric === 'dropped' ? 'counter' : 'gauge',
      `handler ${metric.replaceAll('_', ' ')}`,
      (alias, c) =>
        NETWORK_OPS.slice(0, metric === 'locking_time' ? 1 : NETWORK_OPS.length).map((op, i) => ({
          labels: chainLabel(alias, `,op="${op}"`),
          value: rising(15, c * 100 + i),
        })),
    );

  // Snowman consensus of each chain, with the poll counters the exporter keeps.
  for (const metric of SNOWMAN)
    perChain('snowman', metric, 'gauge', `snowman ${metric.replaceAll('_', ' ')}`, (alias, c) => [
      { labels: chainLabel(alias), value: rising(2, c + metric.length) },
    ]);
  perChain('snowman', 'polls_successful', 'counter', 'number of successful polls', (alias) => [
    { labels: chainLabel(alias), value: () => state.polls.get(alias)?.successful ?? 0 },
  ]);
  perChain('snowman', 'polls_failed', 'counter', 'number of failed polls', (alias) => [
    { labels: chainLabel(alias), value: () => state.polls.get(alias)?.failed ?? 0 },
  ]);
  // The X-Chain's DAG engine (before linearization): its own poll counters, not the Snowman ones.
  if (labelled)
    fams.push({
      name: 'avalanche_avalanche_polls_successful',
      type: 'counter',
      help: 'number of successful polls',
      series: [{ labels: '{chain="X"}', value: steady(91_204) }],
    });
  else
    fams.push({
      name: 'avalanche_X_avalanche_polls_successful',
      type: 'counter',
      help: 'number of successful polls',
      series: [{ labels: '', value: steady(91_204) }],
    });

  // Each chain's p2p handlers (the SDK's: gossip and requests by handler ID) and its block latencies.
  for (const metric of ['msg_count', 'msg_time'])
    perChain('p2p', metric, 'counter', `p2p ${metric.replaceAll('_', ' ')}`, (alias, c) =>
      ['0', '1', '2', '3'].flatMap((handler) =>
        ['app_request', 'app_response', 'app_gossip', 'app_error'].flatMap((op) =>
          ['received', 'sent'].map((io) => ({
            labels: chainLabel(alias, `,handlerID="${handler}",io="${io}",op="${op}"`),
            value: rising(6, c + handler.length + op.length),
          })),
        ),
      ),
    );
  for (const metric of ['blks_accepted_latency', 'blks_rejected_latency', 'blks_build_accept_latency'])
    perChain('snowman', metric, 'histogram', `snowman ${metric.replaceAll('_', ' ')}`, (alias, c) => [
      ...BUCKETS.map((le, i) => ({ labels: `_bucket${chainLabel(alias, `,le="${le}"`)}`, value: rising(i + 1, c + i) })),
      { labels: `_sum${chainLabel(alias)}`, value: rising(1, c) },
      { labels: `_count${chainLabel(alias)}`, value: rising(12, c) },
    ]);

  // Each chain's database calls.
  for (const method of DB_METHODS)
    for (const metric of ['calls', 'duration', 'size'])
      perChain('meterdb', `${method}_${metric}`, 'counter', `${method} ${metric}`, (alias, c) => [
        { labels: chainLabel(alias), value: rising(metric === 'size' ? 900 : 30, c * 31 + method.length) },
      ]);

  // The VMs: coreth's and subnet-evm's go-ethereum registry (timers as summaries), SAE's after the switch.
  for (const chain of state.chains) {
    if (chain.vm !== 'evm' && chain.vm !== 'subnetevm') continue;
    const sae = state.shape === 'transition' && chain.vm === 'evm';
    if (sae) {
      for (const [part, names] of Object.entries(SAE))
        for (const n of names)
          fams.push({
            name: `avalanche_evm_transition_${part}_${n}`,
            type: n.endsWith('_total') ? 'counter' : 'gauge',
            help: n.replaceAll('_', ' '),
            series: [{ labels: chainLabel(chain.alias), value: rising(50, n.length) }],
          });
      for (const op of NETWORK_OPS.slice(20))
        fams.push({
          name: `avalanche_evm_transition_p2p_${op}_count`,
          type: 'counter',
          help: `p2p ${op}`,
          series: [{ labels: chainLabel(chain.alias, ',handler="txs"'), value: rising(12, op.length) }],
        });
      continue;
    }
    const prefix = labelled ? `avalanche_${chain.vm}_eth_` : `avalanche_${chain.alias}_vm_eth_`;
    const own = labelled ? chainLabel(chain.alias) : '';
    for (const t of [...GETH_TIMERS, ...RPC_METHODS.flatMap((m) => [`rpc_duration_${m}_success`, `rpc_duration_${m}_failure`])]) {
      fams.push({
        name: `${prefix}${t}`,
        type: 'summary',
        series: [
          ...QUANTILES.map((q, i) => ({
            labels: labelled ? `{chain="${chain.alias}",quantile="${q}"}` : `{quantile="${q}"}`,
            value: steady(1_000 * (i + 1) + t.length),
          })),
        ],
      });
      fams.push({ name: `${prefix}${t}_count`, type: 'counter', series: [{ labels: own, value: rising(1, t.length) }] });
    }
    for (const c of GETH_COUNTERS) fams.push({ name: `${prefix}${c}`, type: 'gauge', series: [{ labels: own, value: rising(4, c.length) }] });
    fams.push({
      name: `${prefix}chain_block_bad_count`,
      type: 'counter',
      series: [{ labels: own, value: () => state.badBlocks.get(chain.alias) ?? 0 }],
    });
  }
  if (labelled) fams.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return fams;
}
