import { CollectedRecords } from '../src/connectors/collect/index.ts';
const c = new CollectedRecords('nobody');
await c.close(50).catch((e) => console.log('rejected:', e.message));
console.log('after close; process should exit now');
