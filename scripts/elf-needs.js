// What a Linux x86-64 executable needs of the machine it runs on, read from its own ELF headers: the libraries the
// loader must find (DT_NEEDED) and the newest glibc symbol version it asks for. scripts/build-binary.js puts both
// in the single executable's launcher, which names them in one line on a machine that cannot run it.

const SHT_DYNAMIC = 6;
const DT_NEEDED = 1;

/** The ELF64 little-endian section headers of bytes: type, offset, size and link of each. */
function sections(bytes) {
  if (bytes.readUInt32BE(0) !== 0x7f454c46 || bytes[4] !== 2 || bytes[5] !== 1) {
    throw new Error('not a 64-bit little-endian ELF file');
  }
  const shoff = Number(bytes.readBigUInt64LE(0x28));
  const shentsize = bytes.readUInt16LE(0x3a);
  const shnum = bytes.readUInt16LE(0x3c);
  const list = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    list.push({
      type: bytes.readUInt32LE(at + 4),
      offset: Number(bytes.readBigUInt64LE(at + 0x18)),
      size: Number(bytes.readBigUInt64LE(at + 0x20)),
      link: bytes.readUInt32LE(at + 0x28),
    });
  }
  return list;
}

function cString(bytes, at) {
  const end = bytes.indexOf(0, at);
  return bytes.toString('latin1', at, end);
}

/**
 * The libraries the executable names (DT_NEEDED), in its order, and the newest `GLIBC_x.y` among the strings of
 * its dynamic section, as "x.y".
 */
export function elfNeeds(bytes) {
  const all = sections(bytes);
  const dynamic = all.find((s) => s.type === SHT_DYNAMIC);
  if (!dynamic) throw new Error('no dynamic section: a static executable needs no libraries');
  const strings = all[dynamic.link];
  const libraries = [];
  for (let at = dynamic.offset; at < dynamic.offset + dynamic.size; at += 16) {
    const tag = bytes.readBigInt64LE(at);
    if (tag === 0n) break;
    if (tag === BigInt(DT_NEEDED))
      libraries.push(cString(bytes, strings.offset + Number(bytes.readBigUInt64LE(at + 8))));
  }
  const table = bytes.toString('latin1', strings.offset, strings.offset + strings.size);
  let glibc;
  for (const [, major, minor] of table.matchAll(/\0GLIBC_(\d+)\.(\d+)(?:\.\d+)?(?=\0)/g)) {
    const version = [Number(major), Number(minor)];
    if (!glibc || version[0] > glibc[0] || (version[0] === glibc[0] && version[1] > glibc[1]))
      glibc = version;
  }
  if (!glibc) throw new Error('names no GLIBC_ version: not an executable built against glibc');
  return {libraries, glibc: glibc.join('.')};
}

/** The libraries that come with glibc itself: a machine with glibc has them. */
export const GLIBC_OWN = /^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[-\w]*)\.so(\.\d+)*$/;
