/**
 * What every kind of executor is handed alike, under the same names: the declaration's `name`,
 * the points it is called at (`on`), and how it reads the environment (`env`); and what a
 * remote and a command hook, which take their points from the declaration, build from it.
 *
 * @module
 */
import type { EnvReader } from "../secrets.ts";
import type { PointName } from "../sdk/points.ts";

/** The options every executor kind takes, named alike. */
export interface HookOptions {
  /** The declaration's `name`. */
  name: string;
  /** The points the hook is called at; default all (a module: all it handles). */
  on?: PointName[];
  /** Reads an environment variable at call time; default `Deno.env.get`. */
  env?: EnvReader;
}

/** A hook called at the points its declaration names, reading the environment at call time. */
export abstract class DeclaredHook {
  readonly name: string;
  /** Reads an environment variable. */
  protected readonly env: EnvReader;
  readonly #on: PointName[] | undefined;

  constructor(opts: HookOptions) {
    this.name = opts.name;
    this.env = opts.env ?? ((n: string) => Deno.env.get(n));
    this.#on = opts.on;
  }

  /** Is the hook called at `point`? (Every point when its declaration names none.) */
  handles(point: PointName): boolean {
    return this.#on === undefined || this.#on.includes(point);
  }
}
