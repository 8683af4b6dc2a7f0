import { describe, expect, it } from 'vitest';
import { nodeEngineProblem, PROJECT_NODE, REQUIRED_NODE } from './index.ts';

describe('nodeEngineProblem', () => {
  it('accepts a Node inside the engines range and refuses an older one, naming the Node to use', () => {
    expect(nodeEngineProblem('24.21.0', '/n', '>=24.15.0', '/repo/node', true)).toBeNull();
    expect(nodeEngineProblem('26.1.0', '/n', '>=24.15.0', '/repo/node', true)).toBeNull();
    const refused = nodeEngineProblem('20.20.0', '/usr/bin/node', '>=24.15.0', '/repo/node_modules/node/bin/node', true);
    expect(refused).toBe(
      "This program needs Node >=24.15.0; it was started by Node 20.20.0 (/usr/bin/node). Start it with the project's Node instead: /repo/node_modules/node/bin/node",
    );
    expect(nodeEngineProblem('24.14.9', '/n', '>=24.15.0', '/x', false)).toContain('Run `pnpm install`');
  });

  it('reads the range from engines and points at the checkout’s Node', () => {
    expect(REQUIRED_NODE).toMatch(/^>=24\.\d+\.\d+$/);
    expect(PROJECT_NODE).toMatch(/node_modules\/node\/bin\/node$/);
  });
});
