import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// Files outside SQLite that must survive a power cut once they are acknowledged or named by a committed row: a
// file's bytes reach the disk with fsync, and a new name (a rename, a created file or folder) only once its folder
// is fsynced too — until then a crash can bring back the old name or none.

/** fsync of a file ('r+') or a folder ('r'), opened for it. */
async function fsyncPath(path: string, flags: 'r' | 'r+'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** fsyncPath, synchronously. */
function fsyncPathNow(path: string, flags: 'r' | 'r+'): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a written file's bytes to the disk. */
export const syncFile = (path: string): Promise<void> => fsyncPath(path, 'r+');

/** Makes the names in a folder durable (a rename into it, a file or folder created in it). */
export const syncFolder = (dir: string): Promise<void> => fsyncPath(dir, 'r');

/** Creates a folder and its missing parents, and makes each new name durable in the folder that holds it. */
export async function makeFolderDurably(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return; // it was there already
  const created: string[] = [];
  for (let at = dir; at !== dirname(first) && dirname(at) !== at; at = dirname(at)) created.push(at);
  for (const folder of created) await syncFolder(dirname(folder));
}

/**
 * Makes durable the names from `dir` up to `top` (each folder from `dir` to `top`, both included): after a file was
 * renamed into `dir`, whichever call created the folders between (another request may have, and not synced them
 * yet), a power cut keeps the path to it.
 */
export async function syncFoldersUpTo(dir: string, top: string): Promise<void> {
  for (let at = dir; ; at = dirname(at)) {
    await syncFolder(at);
    if (at === top || dirname(at) === at) return;
  }
}

/** Flushes every file under a folder to the disk, then every folder of it (the folder itself included). */
export async function syncTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await syncTree(path);
    else if (entry.isFile()) await syncFile(path);
  }
  await syncFolder(dir);
}

/**
 * Makes a file written by `write(tmp)` durable under `path`, synchronously: written to a temporary name, fsynced,
 * renamed, then its folder fsynced.
 */
export function writeDurably(path: string, write: (tmp: string) => void): void {
  const tmp = `${path}.tmp`;
  write(tmp);
  fsyncPathNow(tmp, 'r+');
  renameSync(tmp, path);
  fsyncPathNow(dirname(path), 'r');
}

/**
 * Writes a file through `write` to the temporary name `tmp`, then makes it durable under `path` (fsync, rename,
 * fsync of the folder), awaiting each step so the event loop keeps serving. On failure the temporary file is
 * removed and `path` is left as it was.
 */
export async function writeFileDurably(
  path: string,
  tmp: string,
  write: (file: FileHandle) => Promise<void>,
): Promise<void> {
  const file = await open(tmp, 'w');
  try {
    await write(file);
    await file.sync();
  } catch (error) {
    await file.close().catch(() => undefined); // the write's error is the one to report
    await rm(tmp, { force: true });
    throw error;
  }
  await file.close();
  await rename(tmp, path);
  await syncFolder(dirname(path));
}
