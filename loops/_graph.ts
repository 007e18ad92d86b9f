/**
 * The graph checks of a loop read from the config: which nodes a path from `start` reaches, and
 * from which nodes a terminal node can be reached. Pure, over ids and edges only.
 *
 * @module
 */

/** A loop's shape: each node's targets (known nodes only) and whether it is terminal. */
export interface Shape {
  start: string;
  nodes: ReadonlyMap<string, { targets: readonly string[]; terminal: boolean }>;
}

/** The ids reachable from `start` (itself included), by the edges. */
export function reachable(shape: Shape): Set<string> {
  const seen = new Set<string>();
  const todo = shape.nodes.has(shape.start) ? [shape.start] : [];
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const to of shape.nodes.get(id)?.targets ?? []) if (!seen.has(to)) todo.push(to);
  }
  return seen;
}

/** The ids from which some terminal node can be reached (the terminal nodes included). */
export function finishing(shape: Shape): Set<string> {
  const into = new Map<string, string[]>();
  for (const [id, n] of shape.nodes) {
    for (const to of n.targets) into.set(to, [...(into.get(to) ?? []), id]);
  }
  const seen = new Set<string>();
  const todo = [...shape.nodes].filter(([, n]) => n.terminal).map(([id]) => id);
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const from of into.get(id) ?? []) if (!seen.has(from)) todo.push(from);
  }
  return seen;
}
