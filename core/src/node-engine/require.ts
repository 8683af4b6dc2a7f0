/**
 * Imported first by every entry point (`import '@service/core/node-engine/require'`): an old Node
 * stops here with a message naming the Node to use, before any dependency that needs a newer one
 * is evaluated.
 */
import { nodeEngineProblem } from './index.ts';

const problem = nodeEngineProblem(process.versions.node, process.execPath);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
