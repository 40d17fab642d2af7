// oidc-provider ships no types: only what bench/oidc-provider-server.ts uses (it is a Koa app).
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    listen(port: number, host: string, callback: () => void): Server;
  }
}
