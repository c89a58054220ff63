// Reading a file named in a config without trusting it: a FIFO would block the
// process (on reload, the running exporter), a device such as /dev/zero never
// ends, and a huge file would be read whole into memory.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export class FileReadError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'FileReadError';
  }
}

/** The text of a regular file of at most `maxBytes`; anything else is refused with a message that says why and what to do. */
export function readRegularFile(file: string, maxBytes: number): string {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? "permission denied for the exporter's user"
          : code === 'EISDIR'
            ? 'it is a directory'
            : (code ?? (err as Error).message);
    throw new FileReadError(file, `cannot read ${file}: ${hint}: check the path and the exporter's permissions`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      const kind = stat.isDirectory()
        ? 'a directory'
        : stat.isFIFO()
          ? 'a FIFO'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'a device'
            : stat.isSocket()
              ? 'a socket'
              : 'not a regular file';
      throw new FileReadError(file, `cannot read ${file}: it is ${kind}: give a regular file`);
    }
    if (stat.size > maxBytes) {
      throw new FileReadError(file, `cannot read ${file}: ${stat.size} bytes is more than the ${maxBytes} allowed: is this the right file?`);
    }
    // Read to the end but never past the cap: the file may grow after fstat.
    const buf = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw new FileReadError(file, `cannot read ${file}: it grew past the ${maxBytes} bytes allowed while being read`);
    }
    return buf.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}
