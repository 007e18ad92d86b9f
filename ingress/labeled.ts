/**
 * The `labeled` flag: the event's issue or pull request carries the auto-execute label,
 * or this very event adds it. Read from the payload alone, no API call. An empty label never
 * matches; names compare exactly, as GitHub spells them.
 *
 * @module
 */

function nameOf(value: unknown): string | undefined {
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : undefined;
}

/** Whether `payload` carries `label` (`action: labeled` with that label, or the current labels). */
export function isLabeled(payload: Record<string, unknown>, label: string): boolean {
  if (!label) return false;
  if (payload.action === "labeled" && nameOf(payload.label) === label) return true;
  for (const key of ["issue", "pull_request"]) {
    const labels = (payload[key] as { labels?: unknown } | null | undefined)?.labels;
    if (Array.isArray(labels) && labels.some((l) => nameOf(l) === label)) return true;
  }
  return false;
}
