/**
 * The config's `loops:` read strictly: a mapping of loop names to loops, each with a `start`
 * node and `nodes` (id → `phase`, `actor`, `next`, `prompt`, `terminal`, `maxAttempts`). Every
 * problem is collected and thrown at once as a {@linkcode ProblemsError}, in file order, each at
 * the key path and `file:line:col` the config loader's `locate` gives (a key's value), token-shaped
 * text masked:
 *
 * - an unknown key (of a loop or a node), with a did-you-mean;
 * - a name that is not lowercase letters, digits and `-` starting with a letter (a loop, a node,
 *   an outcome), a phase that is not label-safe, a loop named like a built-in;
 * - an undeclared `start`, a `next` naming a node the loop does not have;
 * - a node no path reaches from `start`, a node from which no terminal node can be reached
 *   (these two only once the rest of the loop reads: a misspelt node is one problem, not a
 *   cascade);
 * - a non-terminal node without `next` or without `actor`, an unknown actor, a terminal node
 *   with `next` or an `actor`;
 * - a `maxAttempts` that is not a whole number ≥ 1;
 * - with `routingLoop`, a `routing.loop` naming no loop.
 *
 * Cycles are fine (review → work → review). Defaults: `phase` is the node's id, `prompt` `""`,
 * `terminal` false, `maxAttempts` 3. Outcome keys are strings, whatever YAML 1.1 would make of
 * them (`on`, `yes`): the config is read as YAML 1.2's core schema.
 *
 * @module
 */
import { didYouMean, formatKeyPath, isMapping, type KeyPath, showValue } from "../config/mod.ts";
import { maskProblem } from "../config/secrets.ts";
import { byPosition, plural, type Problem, ProblemsError, problemsSummary } from "../errors.ts";
import { BUILTIN_LOOPS, BUILTIN_NAMES } from "./builtin.ts";
import { finishing, reachable } from "./_graph.ts";
import type { Actor, LoopDef, LoopNode, LoopSet } from "./types.ts";

/** Options for {@linkcode parseLoops}. */
export interface ParseLoopsOptions {
  /** The config file, as problems name it. */
  file?: string;
  /** Line and column of a key path (`["loops", "review", "nodes"]`), from the config loader. */
  locate?: (path: (string | number)[]) => { line: number; col: number } | undefined;
  /** `webhooks.ghWebhook.routing.loop`, checked to name a loop when given. */
  routingLoop?: string;
}

/** Where `routing.loop` is in the config. */
export const ROUTING_LOOP_PATH: KeyPath = ["webhooks", "ghWebhook", "routing", "loop"];

const NAME = /^[a-z][a-z0-9-]*$/;
const NAME_WHAT = "lowercase letters, digits and -, starting with a letter";
const PHASE = /^[a-z0-9][a-z0-9._-]*$/;
/** A label is at most 50 characters; the phase's label is `loop:<phase>`. */
const PHASE_MAX = 45;
const LOOP_KEYS = ["start", "nodes"];
const NODE_KEYS = ["phase", "actor", "next", "prompt", "terminal", "maxAttempts"];
const ACTORS: readonly Actor[] = ["agent", "human"];
const DEFAULT_MAX_ATTEMPTS = 3;

const show = (v: unknown) => showValue(v, { structures: "json" });

/** Collects problems, each located as precisely as `locate` allows. */
class Collector {
  readonly problems: Problem[] = [];
  constructor(readonly opts: ParseLoopsOptions) {}

  add(path: KeyPath, message: string): void {
    let at: { line: number; col: number } | undefined;
    for (let n = path.length; n > 0 && !at; n--) at = this.opts.locate?.(path.slice(0, n));
    this.problems.push(maskProblem({
      ...(this.opts.file !== undefined ? { file: this.opts.file } : {}),
      ...(at ? { line: at.line, col: at.col } : {}),
      path: formatKeyPath(path),
      message,
    }));
  }

  unknownKeys(path: KeyPath, raw: Record<string, unknown>, known: string[]): void {
    for (const key of Object.keys(raw)) {
      if (known.includes(key)) continue;
      const guess = didYouMean(key, known);
      this.add(
        [...path, key],
        `unknown key ${show(key)} (${guess ? `did you mean "${guess}"? ` : ""}expected one of: ` +
          `${known.join(", ")})`,
      );
    }
  }
}

/**
 * The built-ins and the config's `loops:` (built-ins first, then the config's in their order).
 * Throws {@linkcode ProblemsError} with every problem.
 */
export function parseLoops(value: unknown, opts: ParseLoopsOptions): LoopSet {
  const c = new Collector(opts);
  const loops = new Map(BUILTIN_LOOPS);
  if (value !== undefined && value !== null && !isMapping(value)) {
    c.add(["loops"], `must be a mapping of loop names to loops (got ${show(value)})`);
  }
  for (const [name, raw] of Object.entries(isMapping(value) ? value : {})) {
    const loop = parseLoop(c, name, raw);
    if (loop) loops.set(name, loop);
  }
  // a loop declared with problems of its own is still a name routing.loop may give
  const names = [...new Set([...BUILTIN_NAMES, ...Object.keys(isMapping(value) ? value : {})])];
  if (opts.routingLoop !== undefined && !names.includes(opts.routingLoop)) {
    const guess = didYouMean(opts.routingLoop, names);
    c.add(
      ROUTING_LOOP_PATH,
      `names no loop: ${show(opts.routingLoop)} (${guess ? `did you mean "${guess}"? ` : ""}` +
        `the loops: ${names.join(", ")})`,
    );
  }
  if (c.problems.length > 0) {
    c.problems.sort(byPosition);
    throw new ProblemsError(
      c.problems,
      problemsSummary(c.problems, `${plural(c.problems.length, "problem")} in the loops`),
    );
  }
  return loops;
}

/** `loops.<name>`; the loop when it reads (problems go to `c`). */
function parseLoop(c: Collector, name: string, raw: unknown): LoopDef | undefined {
  const at = ["loops", name];
  const before = c.problems.length;
  if (BUILTIN_NAMES.includes(name)) {
    c.add(at, `"${name}" is built in; name yours differently`);
  } else if (!NAME.test(name)) {
    c.add(at, `the loop name ${show(name)} must be ${NAME_WHAT}`);
  }
  if (!isMapping(raw)) {
    c.add(at, `must be a mapping with start and nodes (got ${show(raw)})`);
    return undefined;
  }
  c.unknownKeys(at, raw, LOOP_KEYS);
  const ids = isMapping(raw.nodes) ? Object.keys(raw.nodes) : [];
  if (raw.nodes === undefined) c.add(at, "needs nodes (a mapping of node ids to nodes)");
  else if (!isMapping(raw.nodes) || ids.length === 0) {
    c.add(
      [...at, "nodes"],
      `must be a non-empty mapping of node ids to nodes (got ${show(raw.nodes)})`,
    );
  }
  const start = typeof raw.start === "string" ? raw.start : undefined;
  if (raw.start === undefined) {
    c.add(at, "needs a start (the id of the node an item enters first)");
  } else if (start === undefined) {
    c.add([...at, "start"], `must be a node id (got ${show(raw.start)})`);
  } else if (ids.length > 0 && !ids.includes(start)) {
    c.add([...at, "start"], `${unknownNode(start, ids)}: start must be one of its nodes`);
  }
  const nodes: Record<string, LoopNode> = {};
  for (const id of ids) {
    const node = parseNode(
      c,
      [...at, "nodes", id],
      id,
      (raw.nodes as Record<string, unknown>)[id],
      ids,
    );
    if (node) nodes[id] = node;
  }
  // the graph only once everything else reads: a misspelt node is one problem, not a cascade
  if (c.problems.length === before && start !== undefined) checkGraph(c, at, start, ids, nodes);
  if (c.problems.length > before || start === undefined) return undefined;
  return { name, start, nodes, builtin: false };
}

/** `no node "x" in this loop (did you mean "y"?)`. */
function unknownNode(id: string, ids: string[]): string {
  const guess = didYouMean(id, ids);
  return `no node ${show(id)} in this loop${guess ? ` (did you mean "${guess}"?)` : ""}`;
}

/** `loops.<name>.nodes.<id>`; the node, when it is a mapping (problems go to `c`). */
function parseNode(
  c: Collector,
  at: KeyPath,
  id: string,
  raw: unknown,
  ids: string[],
): LoopNode | undefined {
  if (!NAME.test(id)) c.add(at, `the node id ${show(id)} must be ${NAME_WHAT}`);
  if (!isMapping(raw)) {
    c.add(at, `must be a mapping with actor and next, or terminal: true (got ${show(raw)})`);
    return undefined;
  }
  c.unknownKeys(at, raw, NODE_KEYS);
  const terminal = bool(c, at, raw, "terminal");
  const phase = phaseOf(c, at, id, raw);
  const prompt = typeof raw.prompt === "string" ? raw.prompt : "";
  if (raw.prompt !== undefined && typeof raw.prompt !== "string") {
    c.add([...at, "prompt"], `must be a string (got ${show(raw.prompt)})`);
  }
  let maxAttempts = DEFAULT_MAX_ATTEMPTS;
  if (raw.maxAttempts !== undefined) {
    if (Number.isSafeInteger(raw.maxAttempts) && (raw.maxAttempts as number) >= 1) {
      maxAttempts = raw.maxAttempts as number;
    } else {
      c.add([...at, "maxAttempts"], `must be a whole number ≥ 1 (got ${show(raw.maxAttempts)})`);
    }
  }
  const actor = actorOf(c, at, raw, terminal);
  const next = nextOf(c, at, raw, terminal, ids);
  return {
    id,
    phase,
    ...(actor ? { actor } : {}),
    next,
    prompt,
    terminal: terminal ?? false,
    maxAttempts,
  };
}

/** `terminal`: false when absent; undefined when it is no boolean (a problem told). */
function bool(c: Collector, at: KeyPath, raw: Record<string, unknown>, key: string) {
  const v = raw[key];
  if (v === undefined) return false;
  if (typeof v === "boolean") return v;
  c.add([...at, key], `must be true or false (got ${show(v)})`);
  return undefined;
}

/** The node's phase: label-safe, the id when none is given. */
function phaseOf(c: Collector, at: KeyPath, id: string, raw: Record<string, unknown>): string {
  const given = raw.phase !== undefined;
  const phase = given ? raw.phase : id;
  const where = given ? [...at, "phase"] : at;
  const what = given ? "" : " (the node's id, as no phase is given)";
  if (!given && !NAME.test(id)) return id; // the id's own problem says it
  if (typeof phase !== "string" || !PHASE.test(phase)) {
    c.add(
      where,
      `the phase${what} must be label-safe: lowercase letters, digits, ".", "_" and "-", ` +
        `starting with a letter or digit (got ${show(phase)})`,
    );
  } else if (phase.length > PHASE_MAX) {
    c.add(
      where,
      `the phase${what} must be at most ${PHASE_MAX} characters (its label is loop:<phase>, ` +
        `and a label at most 50; got ${phase.length})`,
    );
  }
  return typeof phase === "string" ? phase : id;
}

function actorOf(
  c: Collector,
  at: KeyPath,
  raw: Record<string, unknown>,
  terminal: boolean | undefined,
): Actor | undefined {
  const v = raw.actor;
  if (terminal === undefined && v === undefined) return undefined; // terminal's problem says it
  if (terminal) {
    if (v !== undefined) c.add([...at, "actor"], "a terminal node has no actor; remove it");
    return undefined;
  }
  if (v === undefined) {
    c.add(at, "needs an actor (agent or human), or terminal: true");
    return undefined;
  }
  if (!(ACTORS as readonly unknown[]).includes(v)) {
    c.add([...at, "actor"], `must be agent or human (got ${show(v)})`);
    return undefined;
  }
  return v as Actor;
}

/** The node's `next`: outcome → a node of the loop. */
function nextOf(
  c: Collector,
  at: KeyPath,
  raw: Record<string, unknown>,
  terminal: boolean | undefined,
  ids: string[],
): Record<string, string> {
  const next: Record<string, string> = {};
  const v = raw.next;
  if (terminal === undefined && v === undefined) return next; // terminal's problem says it
  if (terminal) {
    if (v !== undefined) c.add([...at, "next"], "a terminal node has no next; remove it");
    return next;
  }
  if (v === undefined) {
    c.add(at, "needs next (outcome → node), or terminal: true");
    return next;
  }
  if (!isMapping(v) || Object.keys(v).length === 0) {
    c.add([...at, "next"], `must be a non-empty mapping of outcomes to node ids (got ${show(v)})`);
    return next;
  }
  for (const [outcome, to] of Object.entries(v)) {
    const where = [...at, "next", outcome];
    if (!NAME.test(outcome)) c.add(where, `the outcome ${show(outcome)} must be ${NAME_WHAT}`);
    if (typeof to !== "string") {
      c.add(where, `must be a node id (got ${show(to)})`);
    } else if (!ids.includes(to)) {
      c.add(where, unknownNode(to, ids));
    } else next[outcome] = to;
  }
  return next;
}

/** Every node reached from start, and a terminal node reachable from every node. */
function checkGraph(
  c: Collector,
  at: KeyPath,
  start: string,
  ids: string[],
  nodes: Record<string, LoopNode>,
): void {
  const shape = {
    start,
    nodes: new Map(ids.map((id) => [id, {
      targets: Object.values(nodes[id]?.next ?? {}),
      terminal: nodes[id]?.terminal ?? false,
    }])),
  };
  const reached = reachable(shape);
  for (const id of ids) {
    if (!reached.has(id)) c.add([...at, "nodes", id], `no path reaches it from start "${start}"`);
  }
  if (!ids.some((id) => nodes[id]?.terminal)) {
    c.add([...at, "nodes"], "no node is terminal: add one (terminal: true) the others lead to");
    return;
  }
  const done = finishing(shape);
  for (const id of ids) {
    if (nodes[id] && !done.has(id)) {
      c.add([...at, "nodes", id], "no terminal node can be reached from it");
    }
  }
}
