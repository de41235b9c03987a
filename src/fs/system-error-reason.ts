/**
 * The system's reason for a failed file operation, in words for the common codes (a read-only
 * filesystem, permissions, a full disk) and the error's own message otherwise.
 */
export function systemErrorReason(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EROFS':
      return 'the filesystem is read-only (EROFS)';
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'ENOTDIR':
      return (cause as { ours?: boolean }).ours ? (cause as Error).message : 'a part of the path is a file, not a directory (ENOTDIR)';
    case 'ENOSPC':
      return 'no space left on the device (ENOSPC)';
    default:
      return cause instanceof Error ? cause.message : String(cause);
  }
}
