// The P-Chain API (/ext/bc/P, vms/platformvm/service.go) of a simulated node:
// current validators of the primary network and of the simulated L1, the
// validator fee state and the height, with the shapes of the node's release.

import { formatRfc3339Nano } from '../util/gotime.js';
import { CHAINS, L1_CHAIN, L1_SUBNET_ID } from './chain.js';
import { byteOrder, goJson } from './gojson.js';
import { PRIMARY_NETWORK_ID, cb58Encode, hexNoChecksum } from './ids.js';
import type { SimNode } from './node.js';
import { RpcServiceError, type Services } from './rpc.js';
import { FEE_STATE, Staking, type L1Validation, type PrimaryStake } from './validator.js';

/** How many other validators a call without nodeIDs lists besides the node itself. */
const OTHER_VALIDATORS = 4;

const owner = (address: string) => ({ locktime: '0', threshold: '1', addresses: [address] });
const float32Text = (x: number) => Math.fround(x).toFixed(4);

/** platformapi.PermissionlessValidator (v1.11+), PermissionlessValidator with stakeAmount/rewardOwner (v1.10), APIPrimaryValidator (v1.7). */
function primaryJson(node: SimNode, s: PrimaryStake, withDelegators: boolean, own: boolean): string {
  const version = node.release.version;
  const delegators = [...s.delegators].sort((a, b) => a.endS - b.endS || byteOrder(a.txId, b.txId));
  const delegatorWeight = delegators.reduce((sum, d) => sum + d.weight, 0n);
  // The node's own view: itself and the other validators connected; its stake under an
  // old node ID (after node-id-changed) belongs to a node nobody reaches any more.
  const connected = own || s !== node.staking.stake;
  const uptime = s.ownUptime;
  if (version === '1.7.3') {
    return goJson({
      txID: s.txId,
      startTime: String(s.startS),
      endTime: String(s.endS),
      stakeAmount: String(s.weight),
      nodeID: s.nodeId,
      rewardOwner: owner(s.rewardAddress),
      potentialReward: String(s.potentialReward),
      delegationFee: float32Text(s.delegationFee),
      // v1.7 reports the uptime as a fraction.
      uptime: float32Text(uptime / 100),
      connected,
      delegators:
        delegators.length === 0
          ? null
          : delegators.map((d) => ({
              txID: d.txId,
              startTime: String(d.startS),
              endTime: String(d.endS),
              stakeAmount: String(d.weight),
              nodeID: s.nodeId,
              rewardOwner: owner(d.rewardAddress),
              potentialReward: String(d.potentialReward),
            })),
    });
  }
  const legacy = version.startsWith('1.10.');
  const reply: Record<string, unknown> = {
    txID: s.txId,
    startTime: String(s.startS),
    endTime: String(s.endS),
    weight: String(s.weight),
    nodeID: s.nodeId,
  };
  if (legacy) {
    reply.stakeAmount = String(s.weight);
    reply.rewardOwner = owner(s.rewardAddress);
  }
  Object.assign(reply, {
    validationRewardOwner: owner(s.rewardAddress),
    delegationRewardOwner: owner(s.rewardAddress),
    potentialReward: String(s.potentialReward),
    accruedDelegateeReward: String(s.accruedDelegateeReward),
    delegationFee: float32Text(s.delegationFee),
    uptime: float32Text(uptime),
    connected,
  });
  if (s.signer) reply.signer = { publicKey: hexNoChecksum(s.signer.publicKey), proofOfPossession: hexNoChecksum(s.signer.proofOfPossession) };
  if (s.autoRenew && node.release.helicon) {
    // *AutoRenewedConfig, inlined between signer and the delegators (vms/platformvm/api/validator.go, v1.15.0).
    reply.validatorAuthority = owner(s.autoRenew.authorityAddress);
    reply.nextPeriod = String(s.autoRenew.nextPeriodS);
    reply.autoCompoundRewardShares = String(s.autoRenew.compoundShares);
  }
  reply.delegatorCount = String(delegators.length);
  reply.delegatorWeight = String(delegatorWeight);
  if (withDelegators) {
    reply.delegators = delegators.map((d) => {
      const entry: Record<string, unknown> = {
        txID: d.txId,
        startTime: String(d.startS),
        endTime: String(d.endS),
        weight: String(d.weight),
        nodeID: s.nodeId,
      };
      if (legacy) entry.stakeAmount = String(d.weight);
      entry.rewardOwner = owner(d.rewardAddress);
      entry.potentialReward = String(d.potentialReward);
      return entry;
    });
  }
  return goJson(reply);
}

/** platformapi.APIL1Validator. */
function l1Json(v: L1Validation, balance: bigint): string {
  return goJson({
    nodeID: v.nodeId,
    weight: String(v.weight),
    startTime: String(v.startS),
    validationID: v.validationId,
    publicKey: hexNoChecksum(v.publicKey),
    remainingBalanceOwner: owner(v.ownerAddress),
    deactivationOwner: owner(v.ownerAddress),
    minNonce: '0',
    balance: String(balance),
  });
}

/**
 * The L1 chain's validators API (subnet-evm plugin/evm/service.go ValidatorsAPI.GetCurrentValidators, encoded as
 * plugin/evm/client/client.go CurrentValidator: weight and startTimestamp plain numbers, uptimePercentage a float32
 * 0–100): this vantage's view of the L1's whole set (l1-set.ts). A validator is connected unless a scenario stopped it;
 * an inactive one (no balance) reads not connected, as on a real node (its weight sits under the empty node ID, so the
 * chain's network does not count it as a validator). The uptime is upDuration / (now - start), as the service computes.
 */
export function l1ValidatorsServices(node: SimNode): Services {
  return {
    validators: {
      GetCurrentValidators: {
        args: { nodeIDs: 'nodeIDs' },
        call: (a) => {
          const nowMs = node.clock.simMs();
          const nowS = Number(node.clock.nowNs() / 1_000_000_000n);
          const entries = node.l1Set.entries(nowMs, a.nodeIDs as string[]).map(({ validation: v, balance, stopped, downMs }) => {
            const active = balance > 0n;
            const elapsed = Math.max(0, nowS - v.startS);
            const up = Math.max(0, elapsed - Math.floor(downMs / 1000));
            const percentage = elapsed === 0 ? 100 : (up / elapsed) * 100;
            return `{"validationID":"${v.validationId}","nodeID":"${v.nodeId}","weight":${v.weight},"startTimestamp":${v.startS},"isActive":${active},"isL1Validator":true,"isConnected":${active && !stopped},"uptimePercentage":${float32Json(percentage)},"uptimeSeconds":${up}}`;
          });
          return `{"validators":[${entries.join(',')}]}`;
        },
      },
    },
  };
}

/** A float32 as Go's encoding/json writes it (the shortest decimal that reads back as the same float32; 'f' format here). */
export function float32Json(x: number): string {
  const f = Math.fround(x);
  for (let digits = 1; digits <= 9; digits++) {
    const n = Number(f.toPrecision(digits));
    if (Math.fround(n) === f) return String(n);
  }
  return String(f);
}

export function platformServices(node: SimNode): Services {
  const release = node.release;
  const wallS = () => Number(node.clock.nowNs() / 1_000_000_000n);
  const platform: Services['platform'] = {
    GetHeight: { args: {}, call: () => `{"height":"${node.chains.P.height()}"}` },
    // platform.getBlockchains: every chain but the P-Chain, with its name and subnet (the L1's chain is named here).
    GetBlockchains: {
      args: {},
      call: () =>
        goJson({
          blockchains: [
            { id: CHAINS.X.chainId, name: 'X-Chain', subnetID: PRIMARY_NETWORK_ID, vmID: 'jvYyfQTxGMJLuGWa55kdP2p2zSUYsQ5Raupu4TW34ZAUBAbtq' },
            { id: CHAINS.C.chainId, name: 'C-Chain', subnetID: PRIMARY_NETWORK_ID, vmID: 'mgj786NP7uDwBCcq6YwThhaN8FLyybkCa4zBWTQbNgmK6k9A6' },
            ...(release.l1
              ? [{ id: L1_CHAIN.chainId, name: 'simulated-l1', subnetID: L1_SUBNET_ID, vmID: 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy' }]
              : []),
          ],
        }),
    },
    GetCurrentValidators: {
      args: { subnetID: 'id', nodeIDs: 'nodeIDs' },
      call: (a) => {
        const subnetId = cb58Encode(a.subnetID as Buffer);
        const asked = [...new Set(a.nodeIDs as string[])];
        const fetchAll = asked.length === 0;
        const staking = node.staking;
        const ownId = staking.identity.nodeId;
        const nowMs = node.clock.simMs();
        if (subnetId === L1_SUBNET_ID && release.l1) {
          // The whole L1's set, the same on every node's P-Chain (l1-set.ts).
          const chosen = node.l1Set.entries(nowMs, asked);
          return `{"validators":[${chosen.map((e) => l1Json(e.validation, e.balance)).join(',')}]}`;
        }
        if (subnetId !== PRIMARY_NETWORK_ID) return '{"validators":[]}';
        const mine = staking.currentStake();
        const all: PrimaryStake[] = [...(mine ? [mine] : []), ...Staking.others(node.seed, wallS(), OTHER_VALIDATORS)];
        let chosen: PrimaryStake[];
        if (fetchAll) chosen = all.sort((x, y) => x.endS - y.endS || byteOrder(x.txId, y.txId));
        else chosen = asked.flatMap((id) => all.filter((s) => s.nodeId === id));
        // v1.11+ list the delegators only when exactly one node ID was asked; v1.7 always.
        const withDelegators = asked.length === 1;
        return `{"validators":[${chosen.map((s) => primaryJson(node, s, withDelegators, s.nodeId === ownId)).join(',')}]}`;
      },
    },
  };
  if (release.l1) {
    platform.GetValidatorFeeState = {
      args: {},
      call: () => {
        const p = node.chains.P;
        // The chain time is the last accepted block's timestamp (whole seconds), in the node's zone.
        const blockNs = (p.acceptedAtNs(p.height()) / 1_000_000_000n) * 1_000_000_000n;
        return `{"excess":${FEE_STATE.excess},"price":${FEE_STATE.price},"timestamp":"${formatRfc3339Nano(blockNs, node.offsetMinutes)}"}`;
      },
    };
    platform.GetL1Validator = {
      args: { validationID: 'id' },
      call: (a) => {
        const id = cb58Encode(a.validationID as Buffer);
        const l1 = node.staking.l1;
        if (!l1 || l1.validationId !== id) throw new RpcServiceError(`fetching L1 validator "${id}" failed: not found`);
        const body = l1Json(l1, node.staking.l1Balance(node.clock.simMs()));
        return `${body.slice(0, -1)},"subnetID":"${L1_SUBNET_ID}","height":"${node.chains.P.height()}"}`;
      },
    };
  }
  return { platform };
}
