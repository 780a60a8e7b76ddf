// Drives a HandlerSocket server with node-handlersocket, printing one line per step; the Rust
// test (crates/hs/tests/clients.rs) compares the lines. Ports come from HS_READ and HS_WRITE.
'use strict';
const hs = require('node-handlersocket');

const host = '127.0.0.1';
const out = (step, value) => console.log(step + ' ' + JSON.stringify(value));
const fail = (step, err) => { console.log(step + ' ERROR ' + (err && err.message || err)); process.exit(1); };

function step(fn) { return new Promise((resolve) => fn(resolve)); }

async function main() {
  const read = hs.connect({ host, port: Number(process.env.HS_READ) });
  await step((done) => read.on('connect', done));
  const idx = await step((done) => read.openIndex('test', 'people', 'PRIMARY',
    ['id', 'name', 'age'], ['age'], (err, index) => err ? fail('open', err) : done(index)));
  out('find=', await step((d) => idx.find('=', [2], (e, r) => e ? fail('find=', e) : d(r))));
  out('find>=', await step((d) => idx.find('>=', [2], { limit: 2, offset: 0 },
    (e, r) => e ? fail('find>=', e) : d(r))));
  out('findIN', await step((d) => idx.find('=', [hs.in(3, 1, 99)], { limit: 10 },
    (e, r) => e ? fail('findIN', e) : d(r))));
  out('filter', await step((d) => idx.find('>=', [1], { filters: [hs.filter('age', '>', 30)], limit: 10 },
    (e, r) => e ? fail('filter', e) : d(r))));
  const byAge = await step((d) => read.openIndex('test', 'people', 'iage', ['age', 'name'],
    (err, index) => err ? fail('open iage', err) : d(index)));
  out('index<=', await step((d) => byAge.find('<=', [40], { limit: 10 },
    (e, r) => e ? fail('index<=', e) : d(r))));
  read.close();

  const write = hs.connect({ host, port: Number(process.env.HS_WRITE) });
  await step((done) => write.on('connect', done));
  const w = await step((done) => write.openIndex('test', 'people', 'PRIMARY',
    ['id', 'name', 'age'], (err, index) => err ? fail('open w', err) : done(index)));
  await step((d) => w.insert([10, 'Ken', 41], (e) => e ? fail('insert', e) : d()));
  out('insert', await step((d) => w.find('=', [10], (e, r) => e ? fail('insert find', e) : d(r))));
  out('update', await step((d) => w.update('=', [10], [10, 'Kenji', 42], (e, n) => e ? fail('update', e) : d(n))));
  const ages = await step((done) => write.openIndex('test', 'people', 'PRIMARY', ['age'],
    (err, index) => err ? fail('open ages', err) : done(index)));
  out('increment', await step((d) => ages.increment('=', [10], [3], (e, n) => e ? fail('increment', e) : d(n))));
  out('decrementAndGet', await step((d) => ages.decrementAndGet('=', [10], [5], (e, r) => e ? fail('decrement', e) : d(r))));
  out('after', await step((d) => w.find('=', [10], (e, r) => e ? fail('after', e) : d(r))));
  out('delete', await step((d) => w.delete('=', [10], (e, n) => e ? fail('delete', e) : d(n))));
  out('gone', await step((d) => w.find('=', [10], (e, r) => e ? fail('gone', e) : d(r))));
  const dup = await step((d) => w.insert([1, 'Dup', 1], (e) => d(e ? 'error' : 'ok')));
  out('duplicate', dup);
  write.close();
}

main().catch((e) => fail('main', e));
