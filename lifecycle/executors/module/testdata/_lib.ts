/** A helper a fixture imports relatively. */
export function twice(s: string): string {
  return s + s;
}
