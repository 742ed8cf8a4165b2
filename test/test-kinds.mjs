// What a compiled test file starts, read from what it imports (test/run.mjs weighs files by it): a browser,
// an hcd server process, a nats-server, or nothing but itself. A helper named here starts that kind.
const MARKERS = [
  ["browser", ["/browser-harness.js", '"playwright-core"']],
  ["server", ["/real-server.js", "/server-process.js", "/two-nodes.js", "/oidc-provider-rig.js", "node:child_process"]],
  ["nats", ["/nats-cluster.js", "/held-appends.js", "/nats-trust-setup.js"]],
];

/** How much of the machine a file of each kind takes while it runs, in cores: a browser and its server most of two, in-process files half of one. */
export const WEIGHTS = { browser: 1.5, server: 1, nats: 1, light: 0.5 };

/** The kind of a compiled test file, from its source text. */
export function kindOf(source) {
  for (const [kind, markers] of MARKERS) if (markers.some((marker) => source.includes(marker))) return kind;
  return "light";
}
