/** Where each chunk of at most `size` starts, for `count` items (the batches of a DynamoDB call). */
export const chunkStarts = (count: number, size: number): number[] =>
  Array.from({ length: Math.ceil(count / size) }, (_, i) => i * size);
