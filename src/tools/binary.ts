// Binary detection for read_file and edit_file: magic numbers name the common formats (an image, an archive, a
// database), a NUL byte or text that is neither UTF-8 nor mostly printable is "binary data"; UTF-16 is named so the
// agent can convert it.

import { TOOLS } from "../limits.ts";

const MAGIC: Array<[number[] | string, string, number?]> = [
  [[0x89, 0x50, 0x4e, 0x47], "PNG image"],
  [[0xff, 0xd8, 0xff], "JPEG image"],
  ["GIF8", "GIF image"],
  ["%PDF", "PDF document"],
  [[0x50, 0x4b, 0x03, 0x04], "ZIP archive (or a format built on ZIP: jar, docx, xlsx)"],
  [[0x1f, 0x8b], "gzip archive"],
  ["BZh", "bzip2 archive"],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], "xz archive"],
  [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], "7-Zip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "ELF executable"],
  [[0x00, 0x61, 0x73, 0x6d], "WebAssembly module"],
  [[0xca, 0xfe, 0xba, 0xbe], "Java class or Mach-O binary"],
  [[0xcf, 0xfa, 0xed, 0xfe], "Mach-O binary"],
  ["SQLite format 3", "SQLite database"],
  ["wOFF", "WOFF font"],
  ["wOF2", "WOFF2 font"],
  ["OggS", "Ogg media"],
  ["ID3", "MP3 audio"],
  ["ftyp", "MP4/QuickTime media", 4],
  ["ustar", "tar archive", 257],
  ["WEBP", "WebP image", 8],
  ["WAVE", "WAV audio", 8],
  ["BM", "BMP image"],
  [[0x00, 0x00, 0x01, 0x00], "ICO icon"],
];

function startsWith(bytes: Uint8Array, sig: number[] | string, at = 0): boolean {
  const arr = typeof sig === "string" ? [...sig].map((c) => c.charCodeAt(0)) : sig;
  if (bytes.length < at + arr.length) return false;
  return arr.every((b, i) => bytes[at + i] === b);
}

/** Null for text; otherwise what kind of binary file it is. */
export function binaryKind(bytes: Uint8Array): string | null {
  for (const [sig, name, at] of MAGIC) {
    if (name === "BMP image" && !(bytes.length > 14 && bytes[0] === 0x42 && bytes[1] === 0x4d && bytes[6] === 0 && bytes[7] === 0)) continue;
    if (startsWith(bytes, sig, at ?? 0)) return name;
  }
  const sample = bytes.subarray(0, TOOLS.binarySniffBytes);
  if (sample.includes(0)) {
    // UTF-16 text has NULs too: a BOM says so.
    if ((sample[0] === 0xff && sample[1] === 0xfe) || (sample[0] === 0xfe && sample[1] === 0xff)) return "UTF-16 text (convert it with iconv)";
    return "binary data";
  }
  // Cut a trailing partial UTF-8 character off the sample before judging it.
  let end = sample.length;
  if (bytes.length > sample.length) {
    let back = 0;
    while (back < 3 && end - back - 1 >= 0 && ((sample[end - back - 1] ?? 0) & 0xc0) === 0x80) back++;
    if (end - back - 1 >= 0 && ((sample[end - back - 1] ?? 0) & 0xc0) === 0xc0) end = end - back - 1;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample.subarray(0, end));
    return null;
  } catch {
    let control = 0;
    for (const b of sample) if (b < 0x09 || (b > 0x0d && b < 0x20)) control++;
    return control > sample.length / 10 ? "binary data" : null; // else: text in another encoding, shown lossily
  }
}
