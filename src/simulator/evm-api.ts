// The chain endpoints of a simulated node besides the P-Chain's: an EVM
// chain's JSON-RPC (/ext/bc/<chain>/rpc, go-ethereum's server: eth_blockNumber
// and eth_chainId) and the ProposerVM service of a ProposerVM-wrapped chain
// (/ext/bc/<chain>/proposervm, gorilla: proposervm.getCurrentEpoch,
// vms/proposervm/service.go).

import type { NodeChain } from './chain.js';
import type { SimNode } from './node.js';
import { plainError, serveJsonRpc, type HttpReply, type Services } from './rpc.js';

/** eth_chainId of the chains the simulator runs: the C-Chain (43114) and the L1's own. */
const CHAIN_IDS: Record<string, number> = { C: 43_114 };
const L1_EVM_CHAIN_ID = 99_999;

const JSON_HEADERS = { 'content-type': 'application/json' };

function ethReply(body: string): HttpReply {
  return { status: 200, headers: JSON_HEADERS, body: `${body}\n` };
}

/** go-ethereum's rpc server over HTTP, for the methods a monitor calls. */
export function serveEthRpc(node: SimNode, chain: NodeChain, method: string, contentType: string | undefined, body: string): HttpReply {
  // A bare GET is go-ethereum's health probe: 200 with no body.
  if (method === 'GET' && body === '') return { status: 200, headers: {}, body: '' };
  if (method !== 'POST') return plainError(405, 'method not allowed\n');
  const ct = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (ct !== 'application/json') return plainError(415, `invalid content type, only application/json is supported\n`);
  let req: unknown;
  try {
    req = JSON.parse(body);
  } catch {
    return ethReply('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}');
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    return ethReply('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}');
  }
  const r = req as { id?: unknown; method?: unknown; params?: unknown };
  const id = JSON.stringify(r.id ?? null);
  const error = (code: number, message: string) =>
    ethReply(`{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`);
  const name = typeof r.method === 'string' ? r.method : '';
  const answers: Record<string, () => string> = {
    eth_blockNumber: () => `0x${node.executedHeight(chain).toString(16)}`,
    eth_chainId: () => `0x${(CHAIN_IDS[chain.spec.alias] ?? L1_EVM_CHAIN_ID).toString(16)}`,
  };
  const answer = answers[name];
  if (!answer) return error(-32601, `the method ${name} does not exist/is not available`);
  // Positional arguments only: an object is refused before the method runs.
  if (r.params !== undefined && r.params !== null && !Array.isArray(r.params)) return error(-32602, 'non-array args');
  if (Array.isArray(r.params) && r.params.length > 0) return error(-32602, 'too many arguments, want at most 0');
  return ethReply(`{"jsonrpc":"2.0","id":${id},"result":"${answer()}"}`);
}

/** proposervm.getCurrentEpoch (GetEpochResponse: json.Uint64 strings, in this order). */
export function serveProposerVm(node: SimNode, chain: NodeChain, method: string, contentType: string | undefined, body: string): HttpReply {
  const services: Services = {
    proposervm: {
      GetCurrentEpoch: {
        args: {},
        call: () => {
          const e = node.epoch(chain);
          return `{"number":"${e.number}","startTime":"${e.startS}","pChainHeight":"${e.pChainHeight}"}`;
        },
      },
      GetProposedHeight: { args: {}, call: () => `{"height":"${node.chains.P.height()}"}` },
    },
  };
  return serveJsonRpc(method, contentType, body, services);
}
