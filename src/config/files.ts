// Reading the files a config names, bounded: a FIFO, a device (/dev/zero) or a
// huge file must give a clear error at load, never a hang or an exhausted heap.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;
export const MAX_PEM_BYTES = 4 * 1024 * 1024;
export const MAX_PASSWORD_BYTES = 64 * 1024;

/** Why a file could not be read, phrased to follow "cannot read <file>: ". */
export class FileReadError extends Error {}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);

/** The text of a regular file of at most `maxBytes` bytes. */
export function readBoundedFile(file: string, maxBytes: number): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new FileReadError(`${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: check the path and the exporter's permissions`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileReadError(`it is ${kindOf(st)}: give the path of a regular file`);
    const tooBig = () => new FileReadError(`it is larger than ${sizeText(maxBytes)}, the most this file may hold: check that it is the right file`);
    if (st.size > maxBytes) throw tooBig();
    // The size may change while reading (or be reported as 0, as in /proc): read in chunks up to the cap.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(Math.max(st.size + 1, 64 * 1024), maxBytes + 1 - length));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      length += n;
      if (length > maxBytes) throw tooBig();
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw new FileReadError(`${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: check the file and the exporter's permissions`);
  } finally {
    closeSync(fd);
  }
}
