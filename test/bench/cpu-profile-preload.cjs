// Preloaded with NODE_OPTIONS=--require (Node 20 refuses --cpu-prof there): profiles the whole
// process with the inspector and writes <CPU_PROFILE_DIR>/<pid>.cpuprofile when it exits.
const { writeFileSync } = require('node:fs');
const { Session } = require('node:inspector');
const path = require('node:path');

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', write);
  for (const signal of ['SIGTERM', 'SIGINT']) process.prependListener(signal, write);
}
