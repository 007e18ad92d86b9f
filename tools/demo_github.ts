/**
 * `deno task -q demo-github`: the fake GitHub `the-loop demo` ships (`demo/fake_github/`) on
 * 127.0.0.1, with the demo world alone (`demo/fake_github/demo_world.ts`: `octo/demo#1` labelled
 * and started by `you`, `#2` labelled with a stranger's comment, `#3` not labelled), so the
 * README's poller walk-through runs offline on a fresh machine. (`the-loop demo` runs the whole
 * loop around the same world.)
 *
 * It prints the two variables to export (`GITHUB_API_URL`, `GITHUB_TOKEN=demo`) and serves until
 * Ctrl+C. `--port N` picks the port (default 8790; 0 for any free one).
 *
 * @module
 */
import { FakeGitHub, seedDemoWorld } from "../demo/fake_github/mod.ts";

const portFlag = Deno.args.indexOf("--port");
const port = portFlag >= 0 ? Number(Deno.args[portFlag + 1]) : 8790;

await using gh = await FakeGitHub.start({ token: "demo", port });
seedDemoWorld(gh.world);

console.log(`demo GitHub on ${gh.url} (token "demo"); in another shell:`);
console.log(`  export GITHUB_API_URL=${gh.url} GITHUB_TOKEN=demo`);
console.log("Ctrl+C stops it.");
await new Promise<void>((resolve) => Deno.addSignalListener("SIGINT", () => resolve()));
