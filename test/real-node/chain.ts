// EVM transactions on the local network (the C-Chain, and the L1's Subnet-EVM chain), through viem.
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hash, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpcCall } from './http.js';

/**
 * The local network's prefunded C-Chain key (AvalancheGo `genesis/genesis_local.json` funds
 * 0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC). Public test material, worthless outside the
 * local network. The L1's genesis (l1-chain.ts) funds the same address.
 */
export const LOCAL_PREFUNDED_KEY = '0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027' as const;
export const LOCAL_C_CHAIN_ID = 43112;

/** A fixed recipient, so repeated runs are comparable. */
const RECIPIENT = '0x000000000000000000000000000000000000dEaD' as const;

/** An EVM chain served by a node: `/ext/bc/<chain>/rpc`, with its EIP-155 chain ID. */
export interface EvmChain {
  /** Base URL of the node, e.g. `http://127.0.0.1:41234`. */
  nodeUrl: string;
  /** The alias (`C`) or blockchain ID in the node's API paths. */
  chain: string;
  /** The EIP-155 chain ID the transactions are signed for. */
  evmChainId: number;
}

export function localCChain(nodeUrl: string): EvmChain {
  return { nodeUrl, chain: 'C', evmChainId: LOCAL_C_CHAIN_ID };
}

function clients(target: EvmChain, timeoutMs: number) {
  const rpc = `${target.nodeUrl}/ext/bc/${target.chain}/rpc`;
  const chain = defineChain({
    id: target.evmChainId,
    name: `local ${target.chain}`,
    nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
  const transport = http(rpc, { timeout: Math.min(10_000, timeoutMs), retryCount: 0 });
  const account = privateKeyToAccount(LOCAL_PREFUNDED_KEY);
  return { wallet: createWalletClient({ account, chain, transport }), client: createPublicClient({ chain, transport }) };
}

export interface TransferResult {
  hashes: Hash[];
  receipts: TransactionReceipt[];
  /** Highest block number among the receipts. */
  lastBlock: bigint;
}

/**
 * Sends `n` simple transfers from the prefunded account, one after the other, and waits for each
 * receipt (a block is built per transaction as soon as it arrives).
 */
export async function sendTransfers(target: EvmChain, n: number, timeoutMs = 60_000): Promise<TransferResult> {
  const { wallet, client } = clients(target, timeoutMs);
  const hashes: Hash[] = [];
  const receipts: TransactionReceipt[] = [];
  for (let i = 0; i < n; i++) {
    const hash = await wallet.sendTransaction({ to: RECIPIENT, value: parseEther('0.001') });
    hashes.push(hash);
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: timeoutMs, pollingInterval: 250 });
    if (receipt.status !== 'success') throw new Error(`transfer ${hash} reverted in block ${receipt.blockNumber}`);
    receipts.push(receipt);
  }
  const lastBlock = receipts.reduce((max, r) => (r.blockNumber > max ? r.blockNumber : max), 0n);
  return { hashes, receipts, lastBlock };
}

/** Sends one transfer and returns its hash without waiting for a block (the chain may be halted). */
export async function submitTransfer(target: EvmChain): Promise<Hash> {
  const { wallet } = clients(target, 10_000);
  return wallet.sendTransaction({ to: RECIPIENT, value: parseEther('0.001') });
}

/** The receipt's block number, or undefined while the transaction is in no accepted block. */
export async function receiptBlock(target: EvmChain, hash: Hash): Promise<bigint | undefined> {
  const receipt = await rpcCall<{ blockNumber: string } | null>(target.nodeUrl, `/ext/bc/${target.chain}/rpc`, 'eth_getTransactionReceipt', [hash]);
  return receipt ? BigInt(receipt.blockNumber) : undefined;
}

/** `eth_blockNumber`: the last accepted block (go-ethereum's server answers a hex quantity). */
export async function blockNumber(target: Pick<EvmChain, 'nodeUrl' | 'chain'>): Promise<number> {
  const hex = await rpcCall<string>(target.nodeUrl, `/ext/bc/${target.chain}/rpc`, 'eth_blockNumber', []);
  return Number.parseInt(hex.slice(2), 16);
}

/** Sends `n` C-Chain transfers through the node at `nodeUrl` (see sendTransfers). */
export function sendCChainTransfers(nodeUrl: string, n: number, timeoutMs = 60_000): Promise<TransferResult> {
  return sendTransfers(localCChain(nodeUrl), n, timeoutMs);
}
