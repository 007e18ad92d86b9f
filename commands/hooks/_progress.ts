/**
 * `hooks validate`'s live progress line: on a terminal only (stderr), redrawn in place as hooks
 * start and finish, cleared before each result line is printed and when done. Piped or
 * redirected output never sees it, nor any escape code.
 *
 * @module
 */

/** The progress line's state and its drawing. */
export class Progress {
  #write: (text: string) => void;
  #enabled: boolean;
  #total: number;
  #done = 0;
  #running = new Set<string>();
  #shown = false;

  /** `write` goes to stderr; `enabled` when stderr is a terminal. */
  constructor(write: (text: string) => void, opts: { enabled: boolean; total: number }) {
    this.#write = write;
    this.#enabled = opts.enabled;
    this.#total = opts.total;
  }

  /** A hook started loading. */
  start(name: string): void {
    this.#running.add(name);
    this.#draw();
  }

  /** A hook is done; `print` writes its result line with the progress line out of the way. */
  finish(name: string, print: () => void): void {
    this.#running.delete(name);
    this.#done++;
    this.clear();
    print();
    if (this.#done < this.#total) this.#draw();
  }

  /** Shows a phase after the loads (the type check). */
  phase(text: string): void {
    if (!this.#enabled) return;
    this.clear();
    this.#write(text);
    this.#shown = true;
  }

  /** Removes the line. */
  clear(): void {
    if (!this.#shown) return;
    this.#write("\r\x1b[2K");
    this.#shown = false;
  }

  #draw(): void {
    if (!this.#enabled) return;
    const names = [...this.#running].join(", ");
    const text = `loading hooks: ${this.#done}/${this.#total} done` +
      (names ? `; loading ${names}` : "");
    const width = 100;
    this.#write(`\r\x1b[2K${text.length > width ? text.slice(0, width - 1) + "…" : text}`);
    this.#shown = true;
  }
}
