// P-Chain transactions on the five-node local network, built and signed with @avalabs/avalanchejs
// and the local network's prefunded key (ewoq): a legacy subnet with a permissioned validator,
// and a second subnet with a Subnet-EVM chain, converted to an L1 (ACP-77) whose validators have
// a P-Chain balance. Running that chain on the L1's validators is l1-chain.ts.
import * as avalanchejs from '@avalabs/avalanchejs';
import { SUBNET_EVM_VM_ID, log } from './build.js';
import { LOCAL_PREFUNDED_KEY } from './chain.js';
import { rpcCall } from './http.js';
import { waitFor } from './wait.js';

/**
 * The validator manager's address that the conversion records (ConvertSubnetToL1Tx `address`,
 * with the chain's ID): where an L1's validator manager contract lives on its chain, so that its
 * Warp messages are the only way to change the set from then on. The P-Chain does not look at
 * the chain's state: no contract is deployed there, since no test changes the set after the
 * conversion. The address is the one Avalanche's tooling gives the manager's proxy.
 */
const MANAGER_ADDRESS = '0x0feedc0de0000000000000000000000000000000';

/** The EIP-155 chain ID of the local L1's Subnet-EVM chain (and of the drills' second L1, +1 apart). */
export const L1_EVM_CHAIN_ID = 99999;

/**
 * A Subnet-EVM genesis: the C-Chain's launch fee parameters (a 12M gas limit, a 2 s target block
 * rate, a 25 nAVAX minimum base fee and no block gas cost floor), and the local network's prefunded
 * address funded with 1,000,000 of the L1's native token so that viem can send transfers. The
 * network upgrades come from the node's own schedule (all active on the local network).
 */
export function subnetEvmGenesis(evmChainId: number): Record<string, unknown> {
  const gasLimit = 12_000_000;
  return {
    config: {
      chainId: evmChainId,
      feeConfig: {
        gasLimit,
        targetBlockRate: 2,
        minBaseFee: 25_000_000_000,
        targetGas: 60_000_000,
        baseFeeChangeDenominator: 36,
        minBlockGasCost: 0,
        maxBlockGasCost: 1_000_000,
        blockGasCostStep: 200_000,
      },
    },
    alloc: { '8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC': { balance: `0x${(10n ** 24n).toString(16)}` } },
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: `0x${gasLimit.toString(16)}`,
    difficulty: '0x0',
    mixHash: `0x${'0'.repeat(64)}`,
    coinbase: `0x${'0'.repeat(40)}`,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: `0x${'0'.repeat(64)}`,
  };
}

/**
 * The part of @avalabs/avalanchejs used here. The package's type declarations re-export with
 * extensionless relative paths (`export * from './serializable'`), which TypeScript's NodeNext
 * resolution does not follow, so every export but `utils` appears missing: these few are typed
 * here instead (signatures as in the package's dist/vms/pvm/etna-builder/builder.d.ts).
 */
interface Opaque {
  readonly __opaque: unique symbol;
}
type UnsignedTx = {
  getSignedTx(): Opaque;
  toBytes(): Uint8Array;
  getCredentials(): unknown[];
  addSignatureAt(sig: Uint8Array, index: number, subIndex: number): void;
  hasAllSignatures(): boolean;
};
type Utxo = Opaque;
type FeeState = Opaque;
interface Common {
  feeState: FeeState;
  fromAddressesBytes: readonly Uint8Array[];
  utxos: readonly Utxo[];
}
interface ChainContext {
  hrp: string;
}
interface PVMApi {
  getUTXOs(input: { addresses: string[] }): Promise<{ utxos: Utxo[] }>;
  getFeeState(): Promise<FeeState>;
  issueSignedTx(tx: Opaque): Promise<{ txID: string }>;
  getTxStatus(args: { txID: string }): Promise<{ status: string; reason?: string }>;
}
interface AvalancheJs {
  Context: { getContextFromURI(url: string): Promise<ChainContext> };
  pvm: {
    PVMApi: new (url: string) => PVMApi;
    e: {
      newCreateSubnetTx(p: Common & { subnetOwners: readonly Uint8Array[] }, c: ChainContext): UnsignedTx;
      newAddSubnetValidatorTx(
        p: Common & { nodeId: string; subnetId: string; subnetAuth: readonly number[]; start: bigint; end: bigint; weight: bigint },
        c: ChainContext,
      ): UnsignedTx;
      newCreateChainTx(
        p: Common & {
          subnetId: string;
          subnetAuth: readonly number[];
          chainName: string;
          vmId: string;
          fxIds: readonly string[];
          genesisData: Record<string, unknown>;
        },
        c: ChainContext,
      ): UnsignedTx;
      newConvertSubnetToL1Tx(
        p: Common & { subnetId: string; chainId: string; address: Uint8Array; validators: Opaque[]; subnetAuth: readonly number[] },
        c: ChainContext,
      ): UnsignedTx;
    };
  };
  pvmSerial: { ProofOfPossession: new (publicKey: Uint8Array, signature: Uint8Array) => Opaque };
  PChainOwner: { fromNative(addresses: readonly Uint8Array[], threshold?: number): Opaque };
  L1Validator: {
    fromNative(nodeId: string, weight: bigint, balance: bigint, signer: Opaque, remaining: Opaque, deactivation: Opaque): Opaque;
  };
  addTxSignatures: (args: { unsignedTx: UnsignedTx; privateKeys: Uint8Array[] }) => Promise<void>;
  secp256k1: {
    getPublicKey(key: Uint8Array): Uint8Array;
    publicKeyBytesToAddress(publicKey: Uint8Array): Uint8Array;
    sign(message: Uint8Array, key: Uint8Array): Promise<Uint8Array>;
  };
  utils: { hexToBuffer(hex: string): Uint8Array; format(chainAlias: string, hrp: string, address: Uint8Array): string };
}
const { Context, pvm, pvmSerial, PChainOwner, L1Validator, addTxSignatures, secp256k1, utils } = avalanchejs as unknown as AvalancheJs;

/** One validator of an L1 at its conversion: the node (BLS key from its info API), its weight and balance. */
export interface L1ValidatorSpec {
  url: string;
  weight: bigint;
  /** nAVAX: at the fee price (1 nAVAX/s on the local network) the seconds it stays active. */
  balance: bigint;
}

export interface RegisteredL1Validator {
  nodeId: string;
  validationId: string;
  weight: bigint;
  balance: bigint;
}

export interface L1Setup {
  subnetId: string;
  chainId: string;
  /** The chain's name on the P-Chain (platform.getBlockchains). */
  chainName: string;
  evmChainId: number;
  conversionTxId: string;
  /** In the order given to the conversion. */
  validators: RegisteredL1Validator[];
}

export interface SubnetSetup {
  /** A permissioned subnet with `nodeId` as a legacy subnet validator (with an end time). */
  subnetId: string;
  subnetValidatorEnd: number;
  /**
   * A subnet with a Subnet-EVM chain converted to an L1 with `nodeId` as its validator with
   * `balance`, a validator (`inactive`) whose tiny balance runs out seconds after the conversion,
   * and the `others`.
   */
  l1: L1Setup & {
    validationId: string;
    balance: bigint;
    weight: bigint;
    inactive: { nodeId: string; validationId: string; balance: bigint };
  };
  /** Every transaction issued, in order, with the seconds until it was committed. */
  txs: Array<{ kind: string; txId: string; seconds: number }>;
}

interface Wallet {
  api: PVMApi;
  context: ChainContext;
  key: Uint8Array;
  address: Uint8Array;
  bech32: string;
}

async function wallet(url: string): Promise<Wallet> {
  const key = utils.hexToBuffer(LOCAL_PREFUNDED_KEY);
  const address = secp256k1.publicKeyBytesToAddress(secp256k1.getPublicKey(key));
  const context = await Context.getContextFromURI(url);
  return { api: new pvm.PVMApi(url), context, key, address, bech32: utils.format('P', context.hrp, address) };
}

/**
 * Signs with the prefunded key, issues, and waits until the P-Chain has committed the tx.
 * `subnetAuth`: the tx carries a subnet authorization (signature index 0 of the subnet owner,
 * the same key), the last credential. addTxSignatures signs only the inputs' credentials (its
 * address maps come from the spent UTXOs), so that one is signed here.
 */
async function issue(w: Wallet, kind: string, unsignedTx: UnsignedTx, txs: SubnetSetup['txs'], subnetAuth = false): Promise<string> {
  const started = Date.now();
  await addTxSignatures({ unsignedTx, privateKeys: [w.key] });
  if (subnetAuth) {
    unsignedTx.addSignatureAt(await secp256k1.sign(unsignedTx.toBytes(), w.key), unsignedTx.getCredentials().length - 1, 0);
  }
  if (!unsignedTx.hasAllSignatures()) throw new Error(`${kind}: a signature is missing`);
  const { txID } = await w.api.issueSignedTx(unsignedTx.getSignedTx());
  await waitFor(
    async () => {
      const { status, reason } = await w.api.getTxStatus({ txID });
      if (status === 'Dropped' || status === 'Aborted') throw new Error(`${kind} ${txID}: ${status} ${reason ?? ''}`);
      return status === 'Committed';
    },
    { timeoutMs: 60_000, intervalMs: 250, what: `${kind} ${txID} committed` },
  );
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  txs.push({ kind, txId: txID, seconds });
  log(`${kind} ${txID} committed in ${seconds}s`);
  return txID;
}

/** What every builder call needs: fresh UTXOs (the previous tx spent some) and the fee state. */
async function spendable(w: Wallet): Promise<Common> {
  const { utxos } = await w.api.getUTXOs({ addresses: [w.bech32] });
  return { utxos, feeState: await w.api.getFeeState(), fromAddressesBytes: [w.address] };
}

/** A node's BLS public key and proof of possession (info.getNodeID). */
async function nodePop(url: string): Promise<{ nodeId: string; pop: Opaque }> {
  const { nodeID, nodePOP } = await rpcCall<{ nodeID: string; nodePOP: { publicKey: string; proofOfPossession: string } }>(
    url,
    '/ext/info',
    'info.getNodeID',
  );
  return {
    nodeId: nodeID,
    pop: new pvmSerial.ProofOfPossession(utils.hexToBuffer(nodePOP.publicKey), utils.hexToBuffer(nodePOP.proofOfPossession)),
  };
}

async function l1Validator(url: string, subnetId: string, nodeId: string): Promise<{ validationID: string; balance: string } | undefined> {
  const { validators } = await rpcCall<{ validators: Array<{ nodeID: string; validationID?: string; balance?: string }> }>(
    url,
    '/ext/bc/P',
    'platform.getCurrentValidators',
    { subnetID: subnetId, nodeIDs: [nodeId] },
  );
  const v = validators.find((x) => x.nodeID === nodeId);
  return v?.validationID && v.balance !== undefined ? { validationID: v.validationID, balance: v.balance } : undefined;
}

/** nAVAX given to the L1 validator that is meant to run dry: a few seconds at the local minimum price. */
const INACTIVE_BALANCE = 3n;

/**
 * On the network at `url` (the node `nodeId`): creates a subnet and adds `nodeId` as its (legacy)
 * validator until now + 2 days; creates a second subnet with a Subnet-EVM chain and converts it to
 * an L1 with `nodeId` as a validator with `balance` nAVAX and `weight`, the node at `inactive.url`
 * with 3 nAVAX, and the `others`; then waits until the second one is out of balance (inactive).
 */
export async function setUpSubnets(
  url: string,
  nodeId: string,
  options: { balance?: bigint; weight?: bigint; inactive: { url: string; weight: bigint }; others?: L1ValidatorSpec[] },
): Promise<SubnetSetup> {
  const { balance = 1_000_000_000n, weight = 100n, inactive, others = [] } = options;
  const w = await wallet(url);
  const txs: SubnetSetup['txs'] = [];
  const owner = { subnetOwners: [w.address] };

  const subnetId = await issue(w, 'CreateSubnetTx', pvm.e.newCreateSubnetTx({ ...(await spendable(w)), ...owner }, w.context), txs);
  // The local network's minimum staking duration is 24 h, counted from the P-Chain's time.
  const subnetValidatorEnd = Math.floor(Date.now() / 1000) + 2 * 86_400;
  await issue(
    w,
    'AddSubnetValidatorTx',
    pvm.e.newAddSubnetValidatorTx(
      {
        ...(await spendable(w)),
        nodeId,
        subnetId,
        subnetAuth: [0],
        start: BigInt(Math.floor(Date.now() / 1000)),
        end: BigInt(subnetValidatorEnd),
        weight: 100n,
      },
      w.context,
    ),
    txs,
    true,
  );

  const prepared = await prepareL1(url, 'exporterl1', L1_EVM_CHAIN_ID, txs);
  const l1 = await convertToL1(prepared, [
    { url, weight, balance },
    { url: inactive.url, weight: inactive.weight, balance: INACTIVE_BALANCE },
    ...others,
  ]);
  const [own, other] = l1.validators;
  if (!own || !other) throw new Error('the conversion returned fewer validators than given');
  if (own.nodeId !== nodeId) throw new Error(`${url} is ${own.nodeId}, not ${nodeId}`);
  // The P-Chain builds a block when the next L1 validator runs out of balance (its eviction time).
  const started = Date.now();
  await waitFor(async () => (await l1Validator(url, l1.subnetId, other.nodeId))?.balance === '0', {
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `L1 validator ${other.nodeId} to run out of balance`,
  });
  log(`L1 validator ${other.nodeId} inactive (balance 0) ${Math.round((Date.now() - started) / 100) / 10}s after the conversion`);
  return {
    subnetId,
    subnetValidatorEnd,
    l1: {
      ...l1,
      validationId: own.validationId,
      balance,
      weight,
      inactive: { nodeId: other.nodeId, validationId: other.validationId, balance: INACTIVE_BALANCE },
    },
    txs,
  };
}

/** A subnet with a chain, ready to be converted to an L1 (convertToL1): what the L1 drill prepares before its start. */
export interface PreparedL1 {
  url: string;
  subnetId: string;
  chainId: string;
  chainName: string;
  evmChainId: number;
  txs: SubnetSetup['txs'];
}

/** On the network at `url`: creates a subnet and a Subnet-EVM chain on it (not converted yet). */
export async function prepareL1(
  url: string,
  chainName = 'drilll1',
  evmChainId = L1_EVM_CHAIN_ID - 1,
  txs: SubnetSetup['txs'] = [],
): Promise<PreparedL1> {
  const w = await wallet(url);
  const subnetId = await issue(w, 'CreateSubnetTx', pvm.e.newCreateSubnetTx({ ...(await spendable(w)), subnetOwners: [w.address] }, w.context), txs);
  const chainId = await issue(
    w,
    'CreateChainTx',
    pvm.e.newCreateChainTx(
      {
        ...(await spendable(w)),
        subnetId,
        subnetAuth: [0],
        chainName,
        vmId: SUBNET_EVM_VM_ID,
        fxIds: [],
        genesisData: subnetEvmGenesis(evmChainId),
      },
      w.context,
    ),
    txs,
    true,
  );
  return { url, subnetId, chainId, chainName, evmChainId, txs };
}

/**
 * Converts the prepared subnet to an L1 whose validators are the nodes at `validators[].url`
 * (BLS keys from their info.getNodeID), each with its weight and balance; returns their
 * validation IDs, in the order given.
 */
export async function convertToL1(l1: PreparedL1, validators: Array<Omit<L1ValidatorSpec, 'weight'> & { weight?: bigint }>): Promise<L1Setup> {
  const w = await wallet(l1.url);
  const owners = PChainOwner.fromNative([w.address], 1);
  const pops = await Promise.all(validators.map(async (v) => ({ ...(await nodePop(v.url)), balance: v.balance, weight: v.weight ?? 100n })));
  const conversionTxId = await issue(
    w,
    'ConvertSubnetToL1Tx',
    pvm.e.newConvertSubnetToL1Tx(
      {
        ...(await spendable(w)),
        subnetId: l1.subnetId,
        chainId: l1.chainId,
        address: utils.hexToBuffer(MANAGER_ADDRESS),
        validators: pops.map((p) => L1Validator.fromNative(p.nodeId, p.weight, p.balance, p.pop, owners, owners)),
        subnetAuth: [0],
      },
      w.context,
    ),
    l1.txs,
    true,
  );
  const registered = await Promise.all(
    pops.map(async (p): Promise<RegisteredL1Validator> => {
      const v = await l1Validator(l1.url, l1.subnetId, p.nodeId);
      if (!v) throw new Error(`no L1 validator ${p.nodeId} on ${l1.subnetId} after the conversion`);
      return { nodeId: p.nodeId, validationId: v.validationID, weight: p.weight, balance: p.balance };
    }),
  );
  return {
    subnetId: l1.subnetId,
    chainId: l1.chainId,
    chainName: l1.chainName,
    evmChainId: l1.evmChainId,
    conversionTxId,
    validators: registered,
  };
}
