/**
 * Formats Markdown the way `deno fmt` does with this repository's settings, so generated docs
 * (`deno task docs`) pass `deno fmt --check` as written. Used by the doc generators and their
 * tests only; the-loop itself never runs it.
 *
 * @module
 */

/** `text`, formatted by `deno fmt` as a Markdown file of this repository. */
export async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "md", "-"],
    cwd: new URL("..", import.meta.url).pathname, // so deno.json's fmt settings apply
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt failed: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}
