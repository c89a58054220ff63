// CB58, the encoding of Avalanche IDs: base58 (Bitcoin alphabet) of the bytes
// followed by the last 4 bytes of their SHA-256. Only decoding is needed here,
// to check subnet IDs at load rather than let a typo fail every poll.
import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Map(Array.from(ALPHABET, (c, i) => [c, BigInt(i)]));

/** The bytes a CB58 string stands for (checksum checked and removed), or a reason it is not CB58. */
export function decodeCb58(text: string): { bytes: Buffer } | { error: string } {
  let value = 0n;
  let leadingZeros = 0;
  let leading = true;
  for (const c of text) {
    const d = DIGIT.get(c);
    if (d === undefined) return { error: `"${c}" is not a base58 character (0, O, I and l are not used)` };
    if (leading && d === 0n) leadingZeros++;
    else leading = false;
    value = value * 58n + d;
  }
  const hex = value === 0n ? '' : value.toString(16);
  const raw = Buffer.concat([Buffer.alloc(leadingZeros), Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')]);
  if (raw.length < 5) return { error: 'too short to hold an ID and its checksum' };
  const bytes = raw.subarray(0, raw.length - 4);
  const checksum = createHash('sha256').update(bytes).digest().subarray(-4);
  if (!checksum.equals(raw.subarray(-4))) return { error: 'its checksum does not match (a character is wrong or missing)' };
  return { bytes };
}

/**
 * The shape of a node ID, length bounded: `NodeID-` and 20 to 34 base58
 * characters (24 bytes: the ID and its checksum). Cheap enough for every poll;
 * isNodeId() also decodes it.
 */
export const NODE_ID_SHAPE = /^NodeID-[1-9A-HJ-NP-Za-km-z]{20,34}$/;

/**
 * Whether text is a node ID as AvalancheGo writes it: `NodeID-` and the CB58
 * of 20 bytes. A node's answer is checked with it, so that a 1 MB "node ID" is
 * never sent back to the node, served or printed.
 */
export function isNodeId(text: string): boolean {
  if (!NODE_ID_SHAPE.test(text)) return false;
  const decoded = decodeCb58(text.slice('NodeID-'.length));
  return 'bytes' in decoded && decoded.bytes.length === 20;
}
