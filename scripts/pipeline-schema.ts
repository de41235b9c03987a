// Writes schemas/pipeline.schema.json from the pipeline key declarations (node --import tsx scripts/pipeline-schema.ts).
import { writeFileSync } from 'node:fs';
import { pipelineJsonSchema } from '../src/pipeline/pipeline-json-schema.ts';

writeFileSync(new URL('../schemas/pipeline.schema.json', import.meta.url), JSON.stringify(pipelineJsonSchema(), null, 2) + '\n');
