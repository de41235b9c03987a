// The snapshot side of the column codec without a server: the text MariaDB sends for DECIMAL
// columns, ZEROFILL's padding included, becomes the binlog's text. (Every type against a real
// server, both ways: test/it/mariadb-types.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unpaddedDecimal } from '../../../src/connectors/mysql/column-codec.ts';

test("ZEROFILL's zeros are dropped from a DECIMAL, one stays before the point; sign and decimals are kept", () => {
  const cases: Array<[string, string]> = [
    ['0123.4569', '123.4569'], // DECIMAL(8,4) ZEROFILL
    ['0000.0000', '0.0000'],
    ['0000.5000', '0.5000'],
    ['00000005', '5'], // DECIMAL(8,0) ZEROFILL
    ['00000000', '0'],
    ['9999.9999', '9999.9999'],
    ['-012.50', '-12.50'],
    ['-0.01', '-0.01'],
    ['0.5', '0.5'],
    ['12.5', '12.5'],
    ['0', '0'],
    ['7', '7'],
  ];
  for (const [server, expected] of cases) assert.equal(unpaddedDecimal(server), expected, server);
});
