// The index source: index.getLastAccepted on {url}/ext/index/<endpoint> for
// each configured endpoint, in parallel. The parser decides each endpoint's
// state from the answer: HTTP 404 means the node runs with indexing off and
// "no containers have been accepted" is an empty index (both are answers, not
// failures). An endpoint that fails keeps the others' values.
import type { Logger } from 'pino';
import { z } from 'zod';
import { quote } from '../config/echo.js';
import { configSection, intervalKey } from '../config/source-section.js';
import type { RpcReply } from '../rpc/client.js';
import { jsonKind } from '../util/json-kind.js';
import { InvalidResponseError, NotFoundAtUrlError } from '../rpc/errors.js';
import type { LinesBuilder } from '../metrics/render.js';
import { parseRfc3339 } from '../util/gotime.js';
import type { PageSection } from './section.js';
import { uint64 } from '../util/uint64.js';
import type { Source, StateWatcher } from './source.js';
import { askAll, decodeMethod } from './wire.js';

export const INDEX_ENDPOINTS = ['C/block', 'P/block', 'X/block', 'X/tx', 'X/vtx'] as const;
export type IndexEndpoint = (typeof INDEX_ENDPOINTS)[number];

/** Off when `endpoints` is empty; polled at the target's interval unless its own is set. */
export const indexConfig = configSection('index', {
  description: 'The index source (index.getLastAccepted on {url}/ext/index/<endpoint>).',
  keys: {
    endpoints: z
      .array(
        z.enum(INDEX_ENDPOINTS, {
          error: (issue) => `${quote(issue.input)} is not an index endpoint: use one of ${INDEX_ENDPOINTS.join(', ')}`,
        }),
        { error: 'expected a list of index endpoints, e.g. [C/block, P/block]' },
      )
      .optional()
      .describe(`Index endpoints polled with index.getLastAccepted, from ${INDEX_ENDPOINTS.join(', ')}. [] turns the index source off.`),
    interval: intervalKey('the index endpoints are polled'),
  },
  defaults: { endpoints: ['C/block', 'P/block', 'X/block', 'X/tx'] },
  enabled: (settings) => settings.endpoints.length > 0,
});

export const INDEX_METHOD = 'index.getLastAccepted';
export const EMPTY_INDEX_MESSAGE = 'no containers have been accepted';

export type EndpointSnapshot =
  | { endpoint: IndexEndpoint; state: 'disabled' }
  | { endpoint: IndexEndpoint; state: 'empty' }
  | { endpoint: IndexEndpoint; state: 'ok'; lastIndex: number; timestampSeconds: number }
  /** No answer, or one that is not an index's: `error` is what the request or the parse threw. */
  | { endpoint: IndexEndpoint; state: 'failed'; error: unknown };

export interface IndexSnapshot {
  endpoints: EndpointSnapshot[];
}

export const indexApi: Source<IndexSnapshot, unknown, typeof indexConfig> = {
  name: 'index',
  config: indexConfig,
  // Whether the node's health API answers at the URL, when every endpoint answers 404.
  uses: ['health'],
  async poll(ctx) {
    const endpoints = await askAll(
      indexConfig.of(ctx.target).endpoints,
      async (endpoint): Promise<EndpointSnapshot> =>
        parseIndexReply(endpoint, await ctx.rpc(`/ext/index/${endpoint}`, INDEX_METHOD, { encoding: 'hex' })),
      (error, endpoint): EndpointSnapshot => ({ endpoint, state: 'failed', error }),
    );
    if (endpoints.every((e) => e.state === 'disabled')) {
      // Every endpoint 404: indexing off, or a URL that is no node's. The health source tells (from its last
      // answer, else by asking /ext/health once): 404 there too says the URL is wrong, not that indexing is off.
      const api = await ctx.node.use('health', ctx);
      if (!api.found) throw wrongBaseUrl(ctx.target.url, api.reply);
    }
    return { endpoints };
  },
  failure: (snapshot) => snapshot.endpoints.find((e) => e.state === 'failed')?.error,
  reuse: reuseIndex,
  samples: addIndexLines,
  watch: watchIndexing,
  sections: indexSections,
};

/** The node page: each endpoint's state, last accepted index and its time, or why there is none. */
function indexSections(s: IndexSnapshot | undefined): PageSection[] {
  return [
    {
      title: 'Index endpoints',
      columns: ['endpoint', 'state', 'last accepted index', 'accepted'],
      rows: (s?.endpoints ?? []).map((e) => {
        const state = { text: e.state };
        switch (e.state) {
          case 'ok':
            return { label: e.endpoint, values: [state, { number: e.lastIndex }, { time: e.timestampSeconds }] };
          case 'failed':
            return { label: e.endpoint, values: [state, { error: e.error instanceof Error ? e.error.message : String(e.error) }] };
          case 'disabled':
            return { label: e.endpoint, values: [state, { text: 'indexing is off on the node (HTTP 404)', tone: 'dim' as const }] };
          case 'empty':
            return { label: e.endpoint, values: [state, { text: 'no container accepted yet', tone: 'dim' as const }] };
        }
      }),
      empty: 'The index source has not answered yet.',
    },
  ];
}

/** Pure: the error for a URL that answers 404 on /ext/health and on every index endpoint. */
export function wrongBaseUrl(url: string, healthReply: RpcReply): NotFoundAtUrlError {
  return new NotFoundAtUrlError(
    healthReply.body,
    healthReply.url,
    `and from every /ext/index endpoint: ${url} is not an AvalancheGo node's base URL (a pasted API path such as /ext/bc/C/rpc, or a wrong proxy prefix); give the base, e.g. http://10.0.0.5:9650. Not reported as indexing off`,
  );
}

/** `next`'s values in `previous`'s objects when it has the same endpoints (an endpoint still `ok` keeps its object); else `next`. */
export function reuseIndex(previous: IndexSnapshot, next: IndexSnapshot): IndexSnapshot {
  const kept = previous.endpoints;
  const fresh = next.endpoints;
  if (kept.length !== fresh.length) return next;
  for (let i = 0; i < kept.length; i++) if ((kept[i] as EndpointSnapshot).endpoint !== (fresh[i] as EndpointSnapshot).endpoint) return next;
  for (let i = 0; i < kept.length; i++) {
    const k = kept[i] as EndpointSnapshot;
    const f = fresh[i] as EndpointSnapshot;
    if (k.state === 'ok' && f.state === 'ok') {
      k.lastIndex = f.lastIndex;
      k.timestampSeconds = f.timestampSeconds;
    } else kept[i] = f;
  }
  return previous;
}

/** Pure: the answer of one endpoint → its state. Throws (rpc/errors.ts types) when it is neither an index's answer nor a known state. */
export function parseIndexReply(endpoint: IndexEndpoint, reply: RpcReply): EndpointSnapshot {
  const outcome = decodeMethod(reply, ['not_served'], (message) => (message === EMPTY_INDEX_MESSAGE ? 'empty' : undefined));
  switch (outcome.state) {
    case 'not_served':
      return { endpoint, state: 'disabled' };
    case 'empty':
      return { endpoint, state: 'empty' };
    case 'ok':
      return parseLastAccepted(endpoint, outcome.result);
  }
}

/** Pure: the `result` of index.getLastAccepted → last index and accept time. Checked by hand: it runs at every poll. */
export function parseLastAccepted(endpoint: IndexEndpoint, result: unknown): EndpointSnapshot {
  const noContainer = (what: string, value: unknown): InvalidResponseError =>
    new InvalidResponseError(`${INDEX_METHOD} on ${endpoint} returned no container: ${what}, got ${jsonKind(value)}`);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) throw noContainer('result: expected an object', result);
  const { id, timestamp, index } = result as Record<string, unknown>;
  if (typeof id !== 'string') throw noContainer('id: expected a string', id);
  if (typeof timestamp !== 'string') throw noContainer('timestamp: expected a string', timestamp);
  // json.Uint64: a decimal string on the wire (a number is accepted, as the node's decoder does); over 2^64-1 it is no index (and would be served as 1e+26).
  const lastIndex = uint64(index);
  if (lastIndex === undefined) {
    throw noContainer('index: expected a decimal string of at most 2^64-1', typeof index === 'string' ? `"${index.slice(0, 40)}"` : index);
  }
  const time = parseRfc3339(timestamp);
  if (!time) {
    throw new InvalidResponseError(`${INDEX_METHOD} on ${endpoint} returned a timestamp that is not RFC 3339: ${JSON.stringify(timestamp)}`);
  }
  return { endpoint, state: 'ok', lastIndex, timestampSeconds: time.seconds };
}

function addIndexLines(b: LinesBuilder, s: IndexSnapshot | undefined): void {
  if (!s) return;
  for (const e of s.endpoints) {
    const labels = { endpoint: e.endpoint };
    switch (e.state) {
      case 'disabled':
        b.add('avalanchego_index_available', 0, labels);
        break;
      case 'empty':
        b.add('avalanchego_index_available', 1, labels);
        b.add('avalanchego_index_accepted_containers', 0, labels);
        break;
      case 'ok':
        b.add('avalanchego_index_available', 1, labels);
        b.add('avalanchego_index_accepted_containers', e.lastIndex + 1, labels);
        b.add('avalanchego_index_last_accepted_index', e.lastIndex, labels);
        b.add('avalanchego_index_last_accepted_timestamp_seconds', e.timestampSeconds, labels);
        break;
      case 'failed':
        // No data for an endpoint whose request failed: the poll metrics say why.
        break;
    }
  }
}

/** Indexing off (HTTP 404) is logged once per change, not at every poll. */
function watchIndexing(log: Logger): StateWatcher<IndexSnapshot> {
  const disabled = new Set<string>();
  return {
    observe(snapshot) {
      if (!snapshot) return;
      for (const e of snapshot.endpoints) {
        if (e.state === 'disabled' && !disabled.has(e.endpoint)) {
          disabled.add(e.endpoint);
          log.info(
            { endpoint: e.endpoint },
            'index endpoint answers HTTP 404: indexing is off on this node (--index-enabled=false); reported as avalanchego_index_available 0',
          );
        } else if (e.state !== 'disabled' && e.state !== 'failed' && disabled.delete(e.endpoint)) {
          log.info({ endpoint: e.endpoint }, 'index endpoint available again');
        }
      }
    },
  };
}
