/** Throws, three lines down, so the test can check the mapped line. */
export function explode(why: string): never {
  throw new Error(`policy failed: ${why}`);
}
