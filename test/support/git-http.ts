/**
 * A token-protected git code host for tests: git's own smart-HTTP CGI (git http-backend) behind a Node HTTP server
 * that requires `Authorization: Basic base64(x-access-token:<token>)` (or Bearer <token>), answering 401 otherwise.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** Base URL; a repository at <root>/<name> is served at <url>/<name>. */
  url: string;
  authorizations: string[];
  close(): Promise<void>;
}

export async function startGitHttpServer(root: string, token: string): Promise<GitHttpServer> {
  const authorizations: string[] = [];
  const expected = [`Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`, `Bearer ${token}`];
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    authorizations.push(auth);
    if (!expected.includes(auth)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (d: Buffer) => {
      if (headersDone) return void res.write(d);
      head = Buffer.concat([head, d]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10);
        else res.setHeader(k, v);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
