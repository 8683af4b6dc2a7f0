// Preloaded with NODE_OPTIONS=--require: on SIGUSR2, collects garbage (twice, so what finalizers
// freed goes too) and writes process.memoryUsage() to <MEMORY_PROBE_DIR>/<pid>.json, so a bench
// can read what a server process holds live without an endpoint for it.
const { writeFileSync, renameSync } = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const dir = process.env.MEMORY_PROBE_DIR;
if (dir) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  process.on('SIGUSR2', () => {
    gc();
    gc();
    const file = path.join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    renameSync(`${file}.tmp`, file);
  });
}
