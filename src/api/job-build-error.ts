import { isAbsolute, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JobModuleError } from './job-module-error.ts';

/**
 * A job module's builder (`defineJob((env, args) => ...)`) threw: names the module, says that it
 * threw while building the job and where in the module, and keeps the builder's error as the cause.
 */
export class JobBuildError extends JobModuleError {
  /** `file:line:column` of the first stack frame in the module, if the error passed through it. */
  readonly location: string | undefined;
  /** Where the job was being built when it was not the JobManager's thread: 'TaskManager 1 (worker thread)'. */
  readonly builtIn: string | undefined;
  constructor(modulePath: string, cause: unknown, builtIn?: string) {
    const location = firstFrameIn(modulePath, cause);
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(modulePath, `threw while building the job${builtIn ? ` in ${builtIn}` : ''}: ${what}${location ? ` (at ${location})` : ''}`, cause);
    this.name = 'JobBuildError';
    this.location = location;
    this.builtIn = builtIn;
  }
}

const FRAME = /^at (?:.* \()?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?$/;

function firstFrameIn(modulePath: string, error: unknown): string | undefined {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
    if (sameModule(file, modulePath)) return `${file}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/** A cluster's JobManager knows the module by its file name only; its source map names the client's path. */
function sameModule(file: string, modulePath: string): boolean {
  return file === modulePath || (!isAbsolute(modulePath) && file.endsWith(`${sep}${modulePath}`));
}
