// The baseline the ping bench compares hcd with: bare node:http in its own process, answering "OK"
// (the same status, length and content type as a ping) to every request. Prints "bare: listening on <url>".
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const server = createServer((req, res) => {
  req.resume(); // read and drop any body, as a server must
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": "2" }).end("OK");
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`bare: listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => process.exit(0));
