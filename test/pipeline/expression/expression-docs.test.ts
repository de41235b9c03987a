import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EXPRESSION_ERROR_CODES, FUNCTION_NAMES } from '../../../src/pipeline/expression/index.ts';
import { evaluate, ROW } from './expression-fixture.ts';

const DOC = readFileSync(new URL('../../../docs/pipeline-expressions.md', import.meta.url), 'utf8');

describe('pipeline expressions: the documentation', () => {
  it('documents every supported function', () => {
    const missing = FUNCTION_NAMES.filter((f) => !new RegExp(`\`${f}\\b`).test(DOC) && !new RegExp(`\\b${f}\\b`).test(DOC));
    assert.deepEqual(missing, []);
  });

  it('documents every error code', () => {
    const missing = Object.keys(EXPRESSION_ERROR_CODES).filter((c) => !DOC.includes(`| \`${c}\` |`));
    assert.deepEqual(missing, []);
  });

  it('reads MySQL TINYINT(1) as BOOLEAN, from the 0/1 the source gives', () => {
    assert.equal(evaluate('flag IS TRUE', { ...ROW, flag: 1 }), true);
    assert.equal(evaluate('NOT flag', { ...ROW, flag: 0 }), true);
    assert.equal(evaluate('IF(flag, 1, 2)', { ...ROW, flag: 0 }), 2);
  });
});

describe('pipeline expressions: __data_event_type__ of CDC records', () => {
  it('maps snapshot rows, inserts, both images of updates and deletes', async () => {
    const { dataEventType } = await import('../../../src/pipeline/expression/index.ts');
    assert.deepEqual(
      [dataEventType('r', 'after'), dataEventType('c', 'after'), dataEventType('u', 'before'), dataEventType('u', 'after'), dataEventType('d', 'before')],
      ['+I', '+I', '-U', '+U', '-D'],
    );
  });
});
