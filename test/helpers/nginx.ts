import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** nginx as a child process of the test, with its own config, pid and logs in a temp folder. */
export interface Nginx {
  /** `http://127.0.0.1:PORT/mcp` through the balancer. */
  readonly url: URL;
  /** The access log: one `METHOD status upstream` line per request that ended. */
  log(): string[];
  close(): Promise<void>;
}

/** Debian's nginx is in /usr/sbin, which a user's PATH may lack. */
const NGINX = existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";

/** Why there is no nginx here (the tests skip), or undefined when there is one. */
export function nginxMissing(): string | undefined {
  const found = spawnSync(NGINX, ["-v"], { encoding: "utf8" });
  return found.error ? "no nginx here (apt-get install -y nginx)" : undefined;
}

/**
 * The configuration `docs/mcp.md` ("Scaling out") gives, round-robin over `upstreams` with no
 * affinity: event streams unbuffered, reads that outlast any listen, and a request that could
 * not reach a replica (refused: it is down) passed to the next, a POST included, since none of
 * it was sent. `X-Upstream` tells the test which replica answered.
 */
export function nginxConfig(dir: string, port: number, upstreams: readonly URL[]): string {
  return `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  log_format upstream '$request_method $status $upstream_addr';
  access_log ${dir}/access.log upstream;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream livecmd {
${upstreams.map((url) => `    server ${url.host} max_fails=1 fail_timeout=10s;`).join("\n")}
  }
  server {
    listen 127.0.0.1:${port};
    location /mcp {
      proxy_pass http://livecmd;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** Starts nginx in front of `upstreams`; resolves once it answers. */
export async function startNginx(upstreams: readonly URL[]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), "livecmd-nginx-"));
  const port = await freePort();
  const config = path.join(dir, "nginx.conf");
  writeFileSync(config, nginxConfig(dir, port, upstreams));
  const child: ChildProcess = spawn(NGINX, ["-c", config, "-p", dir, "-e", `${dir}/error.log`], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = once(child, "exit");
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  await answers(url, child);
  return {
    url,
    log: () =>
      readFileSync(path.join(dir, "access.log"), "utf8")
        .split("\n")
        .filter((line) => line !== ""),
    async close() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Until nginx answers on `url` (it has bound its port), 10 s at most. */
async function answers(url: URL, child: ChildProcess): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
    const reached = await fetch(new URL("/nginx-up", url)).then(
      () => true,
      () => false,
    );
    if (reached) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("nginx did not answer within 10 s");
}
