// Imported first by a test file that makes store writes fail on demand (persistence/write-faults.ts):
// the seam is armed only in a process whose NODE_ENV is "test" when the store's modules load, and worker
// threads started later inherit it.
process.env.NODE_ENV = "test";
