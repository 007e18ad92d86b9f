import assert from "node:assert/strict";
import { isNode, LineCounter, parseDocument } from "yaml";
import { ProblemsError } from "../../errors.ts";
import {
  type CommandEntry,
  type Declaration,
  describeDeclaration,
  type ModuleEntry,
  parseDeclaration,
  type RemoteEntry,
} from "./mod.ts";

/** Writes `yaml` to a real cli-config.yaml and parses its `hooks:` with a real `locate`. */
function parseFile(yaml: string, home = "/home/op"): Declaration {
  const dir = Deno.makeTempDirSync({ prefix: "decl-" });
  const file = `${dir}/cli-config.yaml`;
  Deno.writeTextFileSync(file, yaml);
  const lc = new LineCounter();
  const doc = parseDocument(Deno.readTextFileSync(file), { lineCounter: lc });
  const locate = (keyPath: (string | number)[]) => {
    const node = doc.getIn(keyPath, true);
    if (!isNode(node) || !node.range) return undefined;
    const { line, col } = lc.linePos(node.range[0]);
    return { line, col };
  };
  return parseDeclaration(doc.toJS().hooks, { file, baseDir: dir, locate, home });
}

function problems(yaml: string): string[] {
  try {
    parseFile(yaml);
  } catch (e) {
    assert.ok(e instanceof ProblemsError, String(e));
    return e.problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`);
  }
  assert.fail("expected a ProblemsError");
}

const FULL = `hooks:
  - name: house-policy
    path: hooks/policy.ts
    executor: Policy
    with: {board: platform}
    permissions: {net: ["roster.acme.example:443"], read: ["./roster.txt"], env: ["ROSTER_TOKEN"]}
    on: [work_item_start, session_spawn]
    required: true
    isolation: process
  - name: compliance
    url: https://hooks.acme.example/the-loop?key=abc
    tokenEnv: ACME_HOOKS_TOKEN
    headers: {X-Team: platform}
  - name: audit
    command: ["./hooks/audit.py", "--strict"]
    env: [AUDIT_TOKEN]
    enabled: false
`;

Deno.test("a full declaration parses with defaults filled and paths resolved to the config dir", () => {
  const decl = parseFile(FULL);
  const dir = decl.baseDir;
  const [m, r, c] = decl.entries as [ModuleEntry, RemoteEntry, CommandEntry];
  assert.equal(m.kind, "module");
  assert.equal(m.path, `${dir}/hooks/policy.ts`);
  assert.equal(m.target, `${dir}/hooks/policy.ts`);
  assert.equal(m.exportName, "Policy");
  assert.deepEqual(m.options, { board: "platform" });
  assert.deepEqual(m.permissions, {
    net: ["roster.acme.example:443"],
    read: [`${dir}/roster.txt`],
    env: ["ROSTER_TOKEN"],
  });
  assert.deepEqual(m.on, ["work_item_start", "session_spawn"]);
  assert.equal(m.required, true);
  assert.equal(m.isolation, "process");
  assert.equal(m.maxMemoryMb, 128);
  assert.equal(m.timeoutSeconds, 5);
  assert.equal(m.line, 2);
  assert.equal(r.kind, "remote");
  assert.equal(r.timeoutSeconds, 10);
  assert.equal(r.tokenEnv, "ACME_HOOKS_TOKEN");
  assert.equal(r.target, "https://hooks.acme.example/the-loop?…");
  assert.equal(r.on, undefined);
  assert.equal(r.required, false);
  assert.equal(c.kind, "command");
  assert.deepEqual(c.argv, [`${dir}/hooks/audit.py`, "--strict"]);
  assert.equal(c.cwd, dir);
  assert.equal(c.timeoutSeconds, 30);
  assert.equal(c.maxOutputBytes, 65536);
  assert.deepEqual(c.env, ["AUDIT_TOKEN"]);
  assert.equal(c.enabled, false);
});

Deno.test("a path resolves against the config file's directory, not the cwd", () => {
  const decl = parseFile("hooks:\n  - name: p\n    path: policy.ts\n");
  assert.notEqual(decl.baseDir, Deno.cwd());
  assert.equal((decl.entries[0] as ModuleEntry).path, `${decl.baseDir}/policy.ts`);
  const home = parseFile("hooks:\n  - name: p\n    path: ~/hooks/p.ts\n", "/home/op");
  assert.equal((home.entries[0] as ModuleEntry).path, "/home/op/hooks/p.ts");
  const bare = parseFile('hooks:\n  - name: c\n    command: ["audit-hook", "x"]\n');
  assert.deepEqual((bare.entries[0] as CommandEntry).argv, ["audit-hook", "x"]);
});

Deno.test("no hooks key is an empty declaration", () => {
  assert.deepEqual(parseFile("state: {}\n").entries, []);
});

Deno.test("on may name only lifecycle points, located by file:line:col", () => {
  const yaml = "hooks:\n  - name: a\n    path: a.ts\n  - name: b\n    url: https://x.example\n" +
    "    on: [poll.cycle]\n";
  assert.deepEqual(problems(yaml), [
    '6:10 hooks[1].on[0]: hook "b": "poll.cycle" is not a lifecycle point (expected one of: ' +
    "work_item_start, session_spawn, session_spawned, waiting_for_input, input_received, " +
    "phase_changed, work_item_complete)",
  ]);
});

Deno.test("every error carries the file and is collected, not just the first", () => {
  try {
    parseFile(
      "hooks:\n  - name: Bad_Name\n    path: a.ts\n  - name: x\n    path: a.ts\n    timeoutSeconds: 0\n",
    );
    assert.fail("expected a ProblemsError");
  } catch (e) {
    assert.ok(e instanceof ProblemsError);
    assert.equal(e.problems.length, 2);
    for (const p of e.problems) assert.match(p.file ?? "", /cli-config\.yaml$/);
    assert.match(
      e.message,
      /cli-config\.yaml:2:11: hooks\[0\]\.name: hook "Bad_Name": must be lowercase/,
    );
    assert.match(
      e.message,
      /cli-config\.yaml:6:21: hooks\[1\]\.timeoutSeconds: hook "x": must be a number > 0/,
    );
  }
});

Deno.test("names are unique and the kind is exactly one of path, url, command", () => {
  const got = problems(
    "hooks:\n  - name: a\n    path: a.ts\n  - name: a\n    path: b.ts\n" +
      "  - name: b\n    path: b.ts\n    url: https://x.example\n  - name: c\n  - path: d.ts\n",
  );
  assert.deepEqual(got, [
    '4:11 hooks[1].name: hook "a": is already used by hooks[0]; names must be unique',
    '6:5 hooks[2]: hook "b": has path and url; exactly one of path, url or command is allowed',
    '9:5 hooks[3]: hook "c": needs exactly one of path (a module), url (a remote) or command (a program)',
    "10:5 hooks[4]: needs a name",
  ]);
});

Deno.test("kind-specific keys are refused cross-kind and unknown keys are named", () => {
  const got = problems(
    "hooks:\n  - name: a\n    path: a.ts\n    tokenEnv: T\n  - name: b\n    url: https://x.example\n" +
      "    permissions: {}\n    env: [X]\n  - name: c\n    command: [x]\n    headers: {}\n    module: m\n",
  );
  assert.deepEqual(got.slice(0, 4), [
    '4:15 hooks[0].tokenEnv: hook "a": "tokenEnv" applies to url: hooks only; this is a path: hook',
    '7:18 hooks[1].permissions: hook "b": "permissions" applies to path: hooks only; this is a url: hook',
    '8:10 hooks[1].env: hook "b": "env" applies to command: hooks only; this is a url: hook',
    '11:14 hooks[2].headers: hook "c": "headers" applies to url: hooks only; this is a command: hook',
  ]);
  assert.match(
    got[4],
    /^12:13 hooks\[2\]\.module: hook "c": unknown key "module" \(expected one of: name, /,
  );
});

Deno.test("a bearer token over cleartext http to a non-loopback host is refused", () => {
  const got = problems(
    "hooks:\n  - name: a\n    url: http://hooks.acme.example/x\n    tokenEnv: TOK\n" +
      "  - name: b\n    url: http://hooks.acme.example/x\n  - name: c\n    url: ftp://x.example\n" +
      "  - name: d\n    url: https://user:pw@x.example\n",
  );
  assert.match(
    got[0],
    /^3:10 hooks\[0\]\.url: hook "a": .*a bearer token would cross the network in cleartext/,
  );
  assert.match(
    got[1],
    /^6:10 hooks\[1\]\.url: hook "b": http:\/\/ to hooks\.acme\.example is refused: .*forged/,
  );
  assert.match(got[2], /hooks\[2\]\.url: hook "c": must be an https:\/\/ URL \(got scheme ftp:\)/);
  assert.match(got[3], /hooks\[3\]\.url: hook "d": must not carry credentials/);
  assert.equal(got.length, 4);
});

Deno.test("http to loopback is fine, with or without a token", () => {
  const decl = parseFile(
    "hooks:\n  - name: a\n    url: http://127.0.0.1:8080/h\n    tokenEnv: TOK\n" +
      "  - name: b\n    url: http://localhost/h\n  - name: c\n    url: http://[::1]:9/h\n",
  );
  assert.deepEqual(decl.entries.map((e) => e.kind), ["remote", "remote", "remote"]);
});

Deno.test("run, ffi, sys and import are never grantable; grants are well-formed", () => {
  const got = problems(
    "hooks:\n  - name: a\n    path: a.ts\n    permissions:\n      run: true\n      ffi: true\n" +
      '      sys: [hostname]\n      import: true\n      hrtime: true\n      net: ["https://x.example"]\n' +
      '      read: yes\n      env: ["A B"]\n',
  );
  assert.match(
    got[0],
    /^5:12 hooks\[0\]\.permissions\.run: hook "a": "run" is never grantable to a hook module/,
  );
  assert.match(got[1], /permissions\.ffi: .*never grantable/);
  assert.match(got[2], /permissions\.sys: .*never grantable/);
  assert.match(got[3], /permissions\.import: .*never grantable/);
  assert.match(
    got[4],
    /permissions\.hrtime: .*unknown permission "hrtime" \(expected one of: net, read, write, env\)/,
  );
  assert.match(got[5], /permissions\.net\[0\]: .*host or host:port/);
  assert.match(
    got[6],
    /permissions\.read: .*must be true or a list of non-empty strings \(got "yes"\)/,
  );
  assert.match(got[7], /permissions\.env\[0\]: .*environment variable name/);
  assert.equal(got.length, 8);
});

Deno.test("every key's type is checked", () => {
  const got = problems(
    "hooks:\n  - name: a\n    path: a.ts\n    executor: 3\n    with: [1]\n    isolation: thread\n" +
      "    maxMemoryMb: 8\n    required: yes\n    enabled: 1\n    timeoutSeconds: -1\n    on: []\n" +
      "  - name: b\n    url: https://x.example\n    tokenEnv: not-a-name\n    headers: {Authorization: x, X-N: 5}\n" +
      "  - name: c\n    command: ./audit.sh --strict\n    maxOutputBytes: 0\n    env: AUDIT\n" +
      "  - name: d\n    path: https://evil.example/h.ts\n",
  );
  const want = [
    /hooks\[0\]\.with: .*must be a mapping/,
    /hooks\[0\]\.isolation: .*must be worker or process/,
    /hooks\[0\]\.executor: .*must be a non-empty string/,
    /hooks\[0\]\.maxMemoryMb: .*whole number ≥ 16/,
    /hooks\[0\]\.on: .*non-empty list of lifecycle points/,
    /hooks\[0\]\.timeoutSeconds: .*> 0/,
    /hooks\[0\]\.required: .*true or false/,
    /hooks\[0\]\.enabled: .*true or false/,
    /hooks\[1\]\.tokenEnv: .*environment variable NAME/,
    /hooks\[1\]\.headers\.Authorization: .*tokenEnv/,
    /hooks\[1\]\.headers\.X-N: .*one-line string/,
    /hooks\[2\]\.command: .*never a shell string/,
    /hooks\[2\]\.env: .*list of strings/,
    /hooks\[2\]\.maxOutputBytes: .*whole number ≥ 1024/,
    /hooks\[3\]\.path: .*not a URL/,
  ];
  for (const re of want) {
    assert.ok(got.some((g) => re.test(g)), `no problem matches ${re}:\n${got.join("\n")}`);
  }
  assert.equal(got.length, want.length, got.join("\n"));
});

Deno.test("a hooks value that is not a list is refused", () => {
  assert.deepEqual(problems("hooks: {name: a}\n"), [
    '1:8 hooks: must be a list of hook entries (got {"name":"a"})',
  ]);
});

Deno.test("describeDeclaration never lists a header value, token or option value", () => {
  const listed = describeDeclaration(parseFile(FULL));
  const text = JSON.stringify(listed);
  assert.ok(!text.includes("platform"), text);
  assert.ok(!text.includes("key=abc"), text);
  assert.equal(listed[1].tokenEnv, "ACME_HOOKS_TOKEN");
  assert.deepEqual(listed[1].headers, ["X-Team"]);
  assert.deepEqual(listed[0].options, ["board"]);
  assert.deepEqual(listed[1].on, "default");
  assert.deepEqual(listed.map((e) => [e.name, e.kind, e.enabled]), [
    ["house-policy", "module", true],
    ["compliance", "remote", true],
    ["audit", "command", false],
  ]);
});

Deno.test("timeoutSeconds is at most an hour (a longer timer would fire at once), located", () => {
  assert.deepEqual(
    problems("hooks:\n  - name: slow\n    url: https://x.example\n    timeoutSeconds: 2200000\n"),
    [
      '4:21 hooks[0].timeoutSeconds: hook "slow": must be a number > 0 and ≤ 3600 (seconds) ' +
      "(got 2200000)",
    ],
  );
  const ok = parseFile(
    "hooks:\n  - name: slow\n    url: https://x.example\n    timeoutSeconds: 3600\n",
  );
  assert.equal(ok.entries[0].timeoutSeconds, 3600);
});

const TOKEN = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"; // token-shaped, not a real token
const NOT_A_NAME = "this looks like a token, not a variable name — put the NAME of the " +
  "environment variable that holds it (e.g. MY_HOOK_TOKEN)";

Deno.test("a token where a variable's name belongs is refused in every such key, never echoed", () => {
  const lines = problems(`hooks:
  - name: m
    path: m.ts
    permissions: {env: [ROSTER_*, ${TOKEN}]}
  - name: r
    url: https://h.example/rpc
    tokenEnv: ${TOKEN}
  - name: c
    command: [x]
    env: [HOME, ${TOKEN}]
`);
  assert.deepEqual(lines, [
    `4:35 hooks[0].permissions.env[1]: hook "m": ${NOT_A_NAME}`,
    `7:15 hooks[1].tokenEnv: hook "r": ${NOT_A_NAME}`,
    `10:17 hooks[2].env[1]: hook "c": ${NOT_A_NAME}`,
  ]);
});

Deno.test("token-shaped text is masked in every declaration problem: key, name, url, path, net", () => {
  const lines = problems(`hooks:
  - name: ${TOKEN}
    path: "https://x.example/${TOKEN}"
    permissions: {net: ["${TOKEN}.example:443"], ${TOKEN}: true}
  - name: r
    url: "ftp://h.example/${TOKEN}"
    headers: {${TOKEN}: x}
  - name: q
    url: "not a url ${TOKEN} at all, and long enough to be cut short"
`);
  const text = lines.join("\n");
  assert.ok(!text.includes(TOKEN.slice(0, 20)), text);
  assert.match(text, /hooks\[0\]\.name: hook "\[redacted\]": must be lowercase/);
  assert.match(text, /hooks\[0\]\.path: .*\(got "https:\/\/x\.example\/\[redacted\]"\)/);
  assert.match(text, /hooks\[0\]\.permissions\.net\[0\]: .*\(got "\[redacted\]\.example:443"\)/);
  assert.match(text, /hooks\[0\]\.permissions\.\[redacted\]: .*unknown permission "\[redacted\]"/);
  assert.match(text, /hooks\[1\]\.headers\.\[redacted\]: .*this header name looks like a token/);
  assert.match(text, /hooks\[2\]\.url: .*\(got "not a url \[redacted\] at all/);
});

Deno.test("an unknown key a unit away from a known one is suggested", () => {
  const got = problems("hooks:\n  - name: a\n    path: a.ts\n    timeout: 2\n");
  assert.match(
    got[0],
    /hooks\[0\]\.timeout: hook "a": unknown key "timeout" \(did you mean "timeoutSeconds"\? expected one of: /,
  );
});
