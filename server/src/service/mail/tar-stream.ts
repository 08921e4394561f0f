import { createReadStream } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';

/** One member of an archive: a file, folder or symbolic link read from disk, or a text or a link made up. */
export type TarEntry =
  | { readonly name: string; readonly source: string }
  | { readonly name: string; readonly text: string; readonly mtime: number }
  | { readonly name: string; readonly link: string; readonly mtime: number };

const block = 512;
const zeros = Buffer.alloc(block);

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** Splits a name into ustar's prefix (155 bytes) and name (100 bytes) at a slash, or null when it cannot fit. */
function split(name: string): { prefix: string; base: string } | null {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let at = name.indexOf('/'); at !== -1; at = name.indexOf('/', at + 1)) {
    const prefix = name.slice(0, at);
    const base = name.slice(at + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100 && base !== '') return { prefix, base };
  }
  return null;
}

interface Header {
  readonly name: string;
  readonly size: number;
  readonly mode: number;
  readonly mtime: number;
  readonly type: '0' | '2' | '5' | 'x';
  readonly link?: string;
}

function ustar(h: Header): Buffer {
  const out = Buffer.alloc(block);
  const parts = split(h.name) ?? { prefix: '', base: h.name.slice(0, 100) };
  out.write(parts.base, 0, 100, 'utf8');
  out.write(octal(h.mode & 0o7777, 8), 100, 'ascii');
  out.write(octal(0, 8), 108, 'ascii');
  out.write(octal(0, 8), 116, 'ascii');
  out.write(octal(h.size, 12), 124, 'ascii');
  out.write(octal(Math.max(0, Math.floor(h.mtime / 1000)), 12), 136, 'ascii');
  out.write(' '.repeat(8), 148, 'ascii');
  out.write(h.type, 156, 'ascii');
  if (h.link !== undefined) out.write(h.link, 157, 100, 'utf8');
  out.write('ustar\u000000', 257, 'ascii');
  out.write(parts.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of out) sum += byte;
  out.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return out;
}

/** A pax record `"<len> key=value\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body);
  while (String(length).length + Buffer.byteLength(body) !== length)
    length = String(length).length + Buffer.byteLength(body);
  return `${length}${body}`;
}

function padding(size: number): Buffer {
  return zeros.subarray(0, (block - (size % block)) % block);
}

/** The header blocks of an entry: a pax header first when its name or link target is too long for ustar. */
function headerBlocks(h: Header): Buffer[] {
  const records =
    (split(h.name) ? '' : paxRecord('path', h.name)) +
    (h.link !== undefined && Buffer.byteLength(h.link) > 100 ? paxRecord('linkpath', h.link) : '');
  if (records === '') return [ustar(h)];
  const pax = Buffer.from(records, 'utf8');
  const paxName = `PaxHeader/${h.name.split('/').pop() ?? ''}`.slice(0, 100);
  return [
    ustar({ name: paxName, size: pax.length, mode: 0o644, mtime: h.mtime, type: 'x' }),
    pax,
    padding(pax.length),
    ustar(h),
  ];
}

/**
 * The bytes of a POSIX (ustar + pax) archive of `entries`, in order, read from disk as they are needed so an archive
 * of any size streams in constant memory. Used by the release packaging (gzip it with zlib). A file that grows
 * while it is read is cut at the size it had; one that shrinks is padded with zeros, so the archive stays valid.
 *
 * @example Readable.from(tarStream([{ name: 'app/START.txt', text: 'hello', mtime: Date.now() }])).pipe(createGzip())
 */
export async function* tarStream(entries: Iterable<TarEntry>): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    if ('text' in entry) {
      const data = Buffer.from(entry.text, 'utf8');
      yield* headerBlocks({ name: entry.name, size: data.length, mode: 0o644, mtime: entry.mtime, type: '0' });
      yield data;
      yield padding(data.length);
      continue;
    }
    if ('link' in entry) {
      yield* headerBlocks({ name: entry.name, size: 0, mode: 0o777, mtime: entry.mtime, type: '2', link: entry.link });
      continue;
    }
    const stat = await lstat(entry.source);
    const base = { mode: stat.mode, mtime: stat.mtimeMs };
    if (stat.isSymbolicLink()) {
      yield* headerBlocks({ ...base, name: entry.name, size: 0, type: '2', link: await readlink(entry.source) });
    } else if (stat.isDirectory()) {
      yield* headerBlocks({ ...base, name: entry.name.replace(/\/?$/, '/'), size: 0, type: '5' });
    } else if (stat.isFile()) {
      yield* headerBlocks({ ...base, name: entry.name, size: stat.size, type: '0' });
      let sent = 0;
      if (stat.size > 0) {
        for await (const chunk of createReadStream(entry.source, { end: stat.size - 1 }) as AsyncIterable<Buffer>) {
          sent += chunk.length;
          yield chunk;
        }
      }
      for (; sent < stat.size; sent += Math.min(block, stat.size - sent))
        yield zeros.subarray(0, Math.min(block, stat.size - sent));
      yield padding(stat.size);
    }
  }
  yield zeros;
  yield zeros;
}
