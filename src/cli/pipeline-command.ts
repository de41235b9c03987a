import { readFileSync } from 'node:fs';
import { checkPipelineText } from '../pipeline/pipeline-validator.ts';
import { pipelineSummary } from '../pipeline/pipeline-summary.ts';

/** Exit codes: 0 a good file, 1 a file with problems, 2 a usage error (unreadable file, running not implemented). */
export function pipelineCommand(file: string, o: { check?: boolean }, out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    err(`weir: pipeline file ${file}: cannot read it: ${(e as Error).message}\n`);
    return 2;
  }
  const { definition, problems } = checkPipelineText(file, text);
  if (!definition) {
    err(problems.map((p) => `${p.message}\n`).join(''));
    err(`weir: ${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
    return 1;
  }
  if (o.check) {
    out(pipelineSummary(definition));
    return 0;
  }
  err(`weir: running a pipeline is not yet implemented (issue 33); 'weir pipeline --check ${file}' checks the file\n`);
  return 2;
}
