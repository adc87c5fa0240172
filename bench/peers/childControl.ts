/** A command of a child's control channel: its words after the first, and what it answers. */
export type ControlCommand = (words: string[]) => string | Promise<string>;

/**
 * The server children's side of the bench's control channel, on stdin: a `cpu` line is answered
 * on stdout with `cpu <microseconds>`, the process's user + system CPU time so far (the bench
 * takes differences, so its own load on the machine does not count against the server), and a
 * line naming one of `commands` with `<name> <its answer>`, in the order asked; the end of stdin
 * stops the server.
 */
export function controlledByStdin(
  stop: () => void,
  commands: Readonly<Record<string, ControlCommand>> = {},
): void {
  let pending = "";
  let answering = Promise.resolve();
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      const [name, ...words] = line.trim().split(" ");
      if (name === "cpu") {
        const { user, system } = process.cpuUsage();
        process.stdout.write(`cpu ${user + system}\n`);
      }
      const command = name === undefined ? undefined : commands[name];
      if (command)
        answering = answering.then(async () => {
          process.stdout.write(`${name} ${await command(words)}\n`);
        });
    }
  });
  process.stdin.on("end", stop);
  process.once("SIGTERM", stop);
}
