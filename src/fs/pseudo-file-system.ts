import { statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';

/**
 * Kernel pseudo-filesystems (statfs f_type magic numbers from linux/magic.h). Files there are
 * views of kernel objects, not storage: writes vanish or fail, and Node's recursive mkdir spins
 * forever on procfs. Refused by type, not by path: `/dev/shm` is a real tmpfs.
 */
const PSEUDO_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0xf97cff8c, 'selinuxfs'],
  [0x43415d53, 'smackfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xde5e81e4, 'efivarfs'],
  [0x19800202, 'mqueue'],
  [0x6e736673, 'nsfs'],
]);

/** A directory weir was asked to write into lies on a pseudo-filesystem. */
export class PseudoFileSystemError extends Error {
  readonly path: string;
  readonly fsType: string;
  constructor(path: string, fsType: string) {
    super(`${path} is on a ${fsType} filesystem, a kernel pseudo-filesystem that cannot store files: choose a directory on a real filesystem`);
    this.name = 'PseudoFileSystemError';
    this.path = path;
    this.fsType = fsType;
  }
}

/** The pseudo-filesystem's name for a statfs type, or undefined for a real filesystem. */
export function pseudoFileSystemName(type: number | bigint): string | undefined {
  return PSEUDO_FILE_SYSTEMS.get(Number(type));
}

/** Throws PseudoFileSystemError if the existing `path` lies on a pseudo-filesystem. */
export async function refusePseudoFileSystem(path: string, named = path): Promise<void> {
  const type = pseudoFileSystemName((await statfs(path)).type);
  if (type) throw new PseudoFileSystemError(named, type);
}

export function refusePseudoFileSystemSync(path: string, named = path): void {
  const type = pseudoFileSystemName(statfsSync(path).type);
  if (type) throw new PseudoFileSystemError(named, type);
}
