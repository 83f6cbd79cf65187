/**
 * CRC-32 (the zip format's: IEEE 802.3, reflected, polynomial 0xEDB88320), sliced by 16: sixteen tables
 * let the loop take 16 bytes a step. fflate's own CRC goes a byte a step, which cost a backup about as
 * much time as copying its files (docs/benchmarks.md, issue 22); this one is several times faster.
 * `crc32(chunk, crc)` continues a CRC over the next chunk (start with 0).
 */

const TABLES = makeTables();

function makeTables(): Int32Array {
  const t = new Int32Array(256 * 16);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    let c = t[i] as number;
    for (let k = 1; k < 16; k++) {
      c = (t[c & 255] as number) ^ (c >>> 8);
      t[k * 256 + i] = c;
    }
  }
  return t;
}

export function crc32(data: Uint8Array, crc = 0): number {
  const t = TABLES;
  let c = ~crc;
  let i = 0;
  const end = data.length - 16;
  for (; i <= end; i += 16) {
    const a = c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    c =
      t[3840 + (a & 255)]! ^
      t[3584 + ((a >>> 8) & 255)]! ^
      t[3328 + ((a >>> 16) & 255)]! ^
      t[3072 + (a >>> 24)]! ^
      t[2816 + data[i + 4]!]! ^
      t[2560 + data[i + 5]!]! ^
      t[2304 + data[i + 6]!]! ^
      t[2048 + data[i + 7]!]! ^
      t[1792 + data[i + 8]!]! ^
      t[1536 + data[i + 9]!]! ^
      t[1280 + data[i + 10]!]! ^
      t[1024 + data[i + 11]!]! ^
      t[768 + data[i + 12]!]! ^
      t[512 + data[i + 13]!]! ^
      t[256 + data[i + 14]!]! ^
      t[data[i + 15]!]!;
  }
  for (; i < data.length; i++) c = t[(c ^ data[i]!) & 255]! ^ (c >>> 8);
  return ~c >>> 0;
}
