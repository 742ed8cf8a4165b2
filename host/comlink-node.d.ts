// comlink ships the node adapter's types as .d.ts beside an .mjs file, which nodenext resolution misses.
declare module "comlink/dist/esm/node-adapter.mjs" {
  import type { Endpoint } from "comlink";
  export default function nodeEndpoint(nep: unknown): Endpoint;
}
