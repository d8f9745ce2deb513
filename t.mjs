import { PGlite } from '@electric-sql/pglite';
let t=Date.now();
const pg = new PGlite();
await pg.waitReady;
console.log('start', Date.now()-t);
await pg.listen('ch', (p)=>console.log('notified', p, Date.now()-t));
await pg.exec('create table x(a int)');
await pg.transaction(async tx => { await tx.query("select pg_notify('ch','in-tx')"); console.log('before commit'); await tx.query('insert into x values (1)'); });
console.log('after commit');
t=Date.now(); const c = await pg.clone(); console.log('clone', Date.now()-t, (await c.query('select count(*) from x')).rows);
await new Promise(r=>setTimeout(r,100));
console.log((await pg.query('select version()')).rows)
