// A vantage of an L1 as a loopback fake node serves it: its P-Chain (height, the L1's set, the fee, the chains) and
// the L1 chain's validators API in subnet-evm's encoding (plugin/evm/client/client.go CurrentValidator).
import type { Route } from './fake-node.js';

export const SUBNET = '2v3qLBtRK4VHC1W1JJMgKYPrSzsXEc83DuWBrhhLKRJXJbiRVA';
export const CHAIN = '2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5';
export const VS = [
  { validationID: 'QtfqoaWMcA3QdLhSPhHRLLZ4NcUeE5QLKbhM9zxKHUAHqVD4T', nodeID: 'NodeID-FQWBUVv46nR5YiaYabXhHvBQDpBVjRCEd', weight: 100 },
  { validationID: '2ZW6HUePBW2dP7dBGa5stjXe1uvK9LwEgrjebDwXEyL5bDMWWS', nodeID: 'NodeID-7Xhw2mDxuDS44j42TCB6U5579esbSt3Lg', weight: 60 },
  { validationID: 'bQ8VkptAkT9mLs6L8Rh7jxQXUmMGLdWZWFnyEtEuJfVYkLtM7', nodeID: 'NodeID-MFrZFVCXPv5iCn6M9K6XduxGTYp891xXZ', weight: 40 },
];

function entry(v: Validator, balance: string) {
  return { nodeID: v.nodeID, weight: String(v.weight), startTime: '1793990680', validationID: v.validationID, balance, minNonce: '0' };
}

export type Validator = (typeof VS)[number];
export const [V0, V1, V2] = VS as unknown as [Validator, Validator, Validator];

/** A vantage: its P-Chain (height, the L1's set, the fee, the chains) and its L1 chain's validators API. */
export function vantage(height: number, balances: string[], connected: boolean[] | 'not_served'): Record<string, Route> {
  return {
    '/ext/bc/P': {
      methods: {
        'platform.getHeight': { height: String(height) },
        'platform.getCurrentValidators': { validators: VS.map((v, i) => entry(v, balances[i] ?? '0')) },
        'platform.getValidatorFeeState': { excess: 0, price: 512, timestamp: '2026-11-26T12:00:00Z' },
        'platform.getBlockchains': {
          blockchains: [
            {
              id: '2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM',
              name: 'X-Chain',
              subnetID: '11111111111111111111111111111111LpoYY',
              vmID: 'x',
            },
            { id: CHAIN, name: 'dispatch', subnetID: SUBNET, vmID: 'srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy' },
          ],
        },
      },
    },
    [`/ext/bc/${CHAIN}/validators`]:
      connected === 'not_served'
        ? { status: 404, body: '404 page not found\n' }
        : {
            methods: {
              'validators.getCurrentValidators': {
                validators: VS.map((v, i) => ({
                  validationID: v.validationID,
                  nodeID: v.nodeID,
                  weight: v.weight,
                  startTimestamp: 1793990680,
                  isActive: true,
                  isL1Validator: true,
                  isConnected: connected[i] ?? false,
                  uptimePercentage: connected[i] ? 99.5 : 42,
                  uptimeSeconds: 1000,
                })),
              },
            },
          },
  };
}
