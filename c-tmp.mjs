import { connect } from '@nats-io/transport-node';
const t = Date.now();
try { await connect({ servers: ['127.0.0.1:1', '127.0.0.1:2'], timeout: 1000 }); } catch (e) { console.log(Date.now()-t, e.constructor.name, e.name, e.message, e.code, e.cause); }
try { await connect({ servers: ['127.0.0.1:4222'], timeout: 1000, user: 'x', pass: 'y' }); } catch (e) { console.log(Date.now()-t, e.constructor.name, e.name, e.message, e.code, e.cause); }
