/**
 * The server children's side of the bench's control channel, on stdin: a `cpu` line is answered
 * on stdout with `cpu <microseconds>`, the process's user + system CPU time so far (the bench
 * takes differences, so its own load on the machine does not count against the server); the
 * end of stdin stops the server.
 */
export function controlledByStdin(stop: () => void): void {
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.trim() !== "cpu") continue;
      const { user, system } = process.cpuUsage();
      process.stdout.write(`cpu ${user + system}\n`);
    }
  });
  process.stdin.on("end", stop);
  process.once("SIGTERM", stop);
}
