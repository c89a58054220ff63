// C-Chain transactions on the local network, through viem.
import { createPublicClient, createWalletClient, defineChain, http, parseEther, type Hash, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * The local network's prefunded C-Chain key (AvalancheGo `genesis/genesis_local.json` funds
 * 0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC). Public test material, worthless outside the
 * local network.
 */
export const LOCAL_PREFUNDED_KEY = '0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027' as const;
export const LOCAL_C_CHAIN_ID = 43112;

/** A fixed recipient, so repeated runs are comparable. */
const RECIPIENT = '0x000000000000000000000000000000000000dEaD' as const;

export function localCChain(nodeUrl: string) {
  const rpc = `${nodeUrl}/ext/bc/C/rpc`;
  return defineChain({
    id: LOCAL_C_CHAIN_ID,
    name: 'Avalanche local C-Chain',
    nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
    rpcUrls: { default: { http: [rpc] } },
  });
}

export interface TransferResult {
  hashes: Hash[];
  receipts: TransactionReceipt[];
  /** Highest block number among the receipts. */
  lastBlock: bigint;
}

/**
 * Sends `n` simple AVAX transfers from the prefunded account, one after the other, and waits
 * for each receipt (a single local node builds a block per transaction as soon as it arrives).
 */
export async function sendCChainTransfers(nodeUrl: string, n: number, timeoutMs = 60_000): Promise<TransferResult> {
  const chain = localCChain(nodeUrl);
  const transport = http(chain.rpcUrls.default.http[0], { timeout: 10_000, retryCount: 0 });
  const account = privateKeyToAccount(LOCAL_PREFUNDED_KEY);
  const wallet = createWalletClient({ account, chain, transport });
  const client = createPublicClient({ chain, transport });

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
