import { describe, expect, it } from 'vitest';
import { hostnameOf, mcpAllowedHostnames } from './allowed-hosts.ts';

describe('the host names an MCP endpoint answers', () => {
  it('are the base URL’s host, the listen address, and loopback when it listens there or everywhere', () => {
    expect(mcpAllowedHostnames({ baseUrl: 'http://127.0.0.1:3000', host: '127.0.0.1' }).sort()).toEqual(['127.0.0.1', '[::1]', 'localhost']);
    expect(mcpAllowedHostnames({ baseUrl: 'https://agents.example.com/', host: '0.0.0.0' }).sort()).toEqual(['127.0.0.1', '[::1]', 'agents.example.com', 'localhost']);
    expect(mcpAllowedHostnames({ baseUrl: 'https://agents.example.com/', host: '10.0.0.5' }).sort()).toEqual(['10.0.0.5', 'agents.example.com']);
    expect(mcpAllowedHostnames({ baseUrl: 'https://agents.example.com/', host: '::1' })).toContain('[::1]');
  });

  it('read a Host header as its host name, port-agnostic, and nothing else', () => {
    expect(hostnameOf('127.0.0.1:3000')).toBe('127.0.0.1');
    expect(hostnameOf('Agents.Example.com')).toBe('agents.example.com');
    expect(hostnameOf('[::1]:80')).toBe('[::1]');
    for (const bad of [null, '', 'a b', 'evil.example/path', 'user@evil.example', 'evil.example?x', 'evil.example#x']) expect(hostnameOf(bad), String(bad)).toBeNull();
  });
});
