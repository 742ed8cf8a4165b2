// A promise's answer, or a rejection with `message` when it takes longer than `ms` (the promise itself goes on).

/** Resolves as `promise` does, or rejects with Error(message) after `ms`, whichever comes first. */
export function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
