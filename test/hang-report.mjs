// Loaded into every test process by run.mjs: on SIGUSR2 (sent when a file's tests have all reported but its
// process does not exit) it prints what still holds the process open, then exits non-zero.
process.on("SIGUSR2", () => {
  const lines = [`still open after the tests: ${JSON.stringify(process.getActiveResourcesInfo())}`];
  for (const handle of process._getActiveHandles()) {
    const kind = handle.constructor?.name ?? typeof handle;
    if (kind === "Socket")
      lines.push(
        `  socket ${handle.localAddress ?? ""}:${handle.localPort ?? ""} -> ${handle.remoteAddress ?? "(none)"}:${handle.remotePort ?? ""}${handle.destroyed ? " destroyed" : ""}`,
      );
    else if (kind === "ChildProcess") lines.push(`  child ${handle.pid} ${handle.spawnargs?.slice(0, 4).join(" ")}`);
    else if (kind === "Timeout")
      lines.push(
        `  timer of ${handle._idleTimeout} ms${handle._repeat ? ", repeating" : ""}: ${String(handle._onTimeout).slice(0, 160).replace(/\s+/g, " ")}`,
      );
    else lines.push(`  ${kind}`);
  }
  process.stderr.write(lines.join("\n") + "\n", () => process.exit(70));
});
