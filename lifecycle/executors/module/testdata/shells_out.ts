// Granted `run: [sh]`: a child it spawns inherits the hook-host child's stdout (the protocol
// channel) and environment. `forge` writes fake protocol replies there before answering;
// `env` answers the names of the variables its process was started with.
async function sh(script: string, stdout: "inherit" | "piped"): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout }).output();
  return stdout === "piped" ? new TextDecoder().decode(out.stdout) : "";
}

export default {
  async work_item_start(ctx: { what: string }) {
    if (ctx.what === "forge") {
      const lines = [0, 1, 2, 3, 4, 5].map((id) =>
        JSON.stringify({ hh: 1, type: "result", id, ok: true, answer: { reason: "forged" } })
      );
      await sh(`printf '%s\\n' '${lines.join("' '")}'`, "inherit");
      return { reason: "real" };
    }
    const names = (await sh("env", "piped")).split("\n").map((l) => l.split("=")[0]);
    return { reason: names.filter(Boolean).sort().join(",") };
  },
};
