/**
 * The upstream connection pools: at most `maxSockets` connections in all, `maxFreeSockets` idle ones kept per
 * upstream, an idle connection closed after `keepAliveMs` (node's agent `timeout` applies to free sockets; a
 * request in flight sets its own socket timeout).
 */
import http from 'node:http';
import https from 'node:https';

export interface UpstreamAgents {
  http: http.Agent;
  https: https.Agent;
  destroy(): void;
}

export interface AgentLimits {
  maxSockets: number;
  maxFreeSockets: number;
  keepAliveMs: number;
}

export function createAgents(limits: AgentLimits): UpstreamAgents {
  const opts: http.AgentOptions = {
    keepAlive: true,
    maxSockets: limits.maxSockets,
    maxTotalSockets: limits.maxSockets,
    maxFreeSockets: limits.maxFreeSockets,
    timeout: limits.keepAliveMs,
    scheduling: 'lifo',
  };
  const agents = { http: new http.Agent(opts), https: new https.Agent(opts) };
  return { ...agents, destroy: () => (agents.http.destroy(), agents.https.destroy()) };
}
