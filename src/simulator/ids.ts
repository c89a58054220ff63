// AvalancheGo identifiers and byte encodings: cb58 (base58 with a 4-byte
// sha256 checksum) for IDs and NodeIDs, and `0x` hex with the same checksum
// for container bytes (utils/formatting).

import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const ALPHABET_INDEX = new Map(Array.from(ALPHABET, (c, i) => [c, i]));

export function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** mulberry32: a small deterministic PRNG so every run of a seed looks alike. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The last four bytes of sha256(data): AvalancheGo's hashing.Checksum(data, 4). */
export function checksum(data: Uint8Array): Buffer {
  return sha256(data).subarray(28, 32);
}

export function base58Encode(bytes: Uint8Array): string {
  // The classic big-number-in-a-byte-array algorithm: no BigInt, so IDs are cheap.
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i] ?? 0;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] ?? 0) << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '1'.repeat(zeros);
  for (let k = digits.length - 1; k >= 0; k--) out += ALPHABET.charAt(digits[k] ?? 0);
  return out;
}

export function base58Decode(text: string): Buffer | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  let n = 0n;
  for (const c of text) {
    const v = ALPHABET_INDEX.get(c);
    if (v === undefined) return undefined;
    n = n * 58n + BigInt(v);
  }
  const body: number[] = [];
  while (n > 0n) {
    body.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return Buffer.from([...new Array<number>(zeros).fill(0), ...body]);
}

export function cb58Encode(bytes: Uint8Array): string {
  return base58Encode(Buffer.concat([bytes, checksum(bytes)]));
}

/** Decodes cb58 and verifies its checksum; undefined when invalid. */
export function cb58Decode(text: string): Buffer | undefined {
  const raw = base58Decode(text);
  if (!raw || raw.length < 4) return undefined;
  const body = raw.subarray(0, raw.length - 4);
  if (!checksum(body).equals(raw.subarray(raw.length - 4))) return undefined;
  return body;
}

/** ids.FromString: a cb58 string of exactly 32 bytes. */
export function parseId(text: string): Buffer | undefined {
  const bytes = cb58Decode(text);
  return bytes && bytes.length === 32 ? bytes : undefined;
}

/** formatting.Encode(Hex or HexC): `0x` + hex of the bytes and their checksum. */
export function hexWithChecksum(bytes: Uint8Array): string {
  return `0x${Buffer.concat([bytes, checksum(bytes)]).toString('hex')}`;
}

/** formatting.Encode(HexNC): no checksum. */
export function hexNoChecksum(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes).toString('hex')}`;
}

/** The empty ID, also the primary network's subnet ID and the P-chain ID. */
export const PRIMARY_NETWORK_ID = '11111111111111111111111111111111LpoYY';

/** A deterministic NodeID-… for a seed. */
export function nodeIdFor(seed: string): string {
  return `NodeID-${cb58Encode(sha256(`node:${seed}`).subarray(0, 20))}`;
}

/** ids.NodeIDFromString: `NodeID-` + cb58 of 20 bytes; undefined when invalid. */
export function parseNodeId(text: string): Buffer | undefined {
  if (!text.startsWith('NodeID-')) return undefined;
  const bytes = cb58Decode(text.slice('NodeID-'.length));
  return bytes && bytes.length === 20 ? bytes : undefined;
}

// bech32 (BIP 173), for the P-Chain addresses (`P-avax1…`) of reward and balance owners.
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ v) >>> 0;
    gen.forEach((g, i) => {
      if ((top >>> i) & 1) chk = (chk ^ g) >>> 0;
    });
  }
  return chk;
}

export function bech32Encode(hrp: string, data: Uint8Array): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const expanded = [...Array.from(hrp, (c) => c.charCodeAt(0) >>> 5), 0, ...Array.from(hrp, (c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32[w]).join('')}`;
}

/** A mainnet P-Chain address for a seed. */
export function pChainAddressFor(seed: string): string {
  return `P-${bech32Encode('avax', sha256(`address:${seed}`).subarray(0, 20))}`;
}

/**
 * Bytes shaped like a compressed BLS12-381 point (48 bytes for a public key,
 * 96 for a signature): the compression flag set, as real keys have. Not a
 * real key: nothing here verifies proofs of possession.
 */
export function blsPointFor(seed: string, length: 48 | 96): Buffer {
  const out = Buffer.alloc(length);
  for (let off = 0, i = 0; off < length; off += 32, i++) sha256(`bls:${seed}:${i}`).copy(out, off, 0, Math.min(32, length - off));
  out.writeUInt8((out.readUInt8(0) & 0x3f) | 0x80, 0);
  return out;
}
