import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyCharsOf, mySqlTypeOf } from '../../../src/connectors/mysql/mysql-logical-type.ts';
import { mySqlSchemaDialect } from '../../../src/connectors/mysql/mysql-schema-ddl.ts';

test("a primary key's long strings share the index's 3,072 bytes with its other columns", () => {
  // A pipeline's key of a source id and the shard's table name (a STRING): 4 bytes for the INT, 2 for the length, 766 utf8mb4 characters.
  assert.equal(keyCharsOf([{ kind: 'INT' }, { kind: 'STRING' }]), 766);
  assert.equal(keyCharsOf([{ kind: 'STRING' }, { kind: 'STRING' }]), 383);
  assert.equal(keyCharsOf([{ kind: 'BIGINT' }]), 768);
  assert.equal(mySqlTypeOf({ kind: 'STRING' }, 766), 'varchar(766)');
  assert.equal(mySqlTypeOf({ kind: 'VARCHAR', length: 20 }, 766), 'varchar(20)');
  assert.equal(mySqlTypeOf({ kind: 'STRING' }), 'longtext');
  const [create] = mySqlSchemaDialect.statements({ namespace: 'shop', table: 'orders' }, {
    kind: 'create.table',
    schema: { columns: [{ name: 'id', type: { kind: 'INT' }, nullable: false }, { name: 'note', type: { kind: 'STRING' }, nullable: true }, { name: 'shard', type: { kind: 'STRING' }, nullable: false }], primaryKey: ['shard', 'id'] },
  });
  assert.equal(create, 'CREATE TABLE IF NOT EXISTS `shop`.`orders` (`id` int NOT NULL, `note` longtext NULL, `shard` varchar(766) NOT NULL, PRIMARY KEY (`shard`, `id`)) DEFAULT CHARSET = utf8mb4');
});
