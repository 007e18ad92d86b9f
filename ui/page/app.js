// The status page's script (browser code, embedded by ui/_assets.ts). It renders the JSON of
// /api/v1/state (or /api/v1/items/REF on an item's page) with textContent only, never HTML from
// data; follows /api/v1/events and fetches the snapshot again after events (debounced); marks a
// health figure stale by its own clock; and sends the controls as JSON POSTs carrying the page's
// CSRF token. No framework, no CDN: docs/decisions/0015-status-page-without-a-framework.md.
"use strict";

(() => {
  const CSRF = document.querySelector('meta[name="the-loop-csrf"]').content;
  const DEBOUNCE_MS = 300;
  const STALE_TICK_MS = 5000;
  const itemPrefix = "/items/";
  const itemRef = location.pathname.startsWith(itemPrefix)
    ? decodeURIComponent(location.pathname.slice(itemPrefix.length))
    : null;
  let last = null; // the last snapshot (state or item view)
  let skewMs = 0; // server clock minus ours
  let timer = 0;
  let busy = false;
  let again = false;
  let mounted = null; // the terminal mounted, by ws URL

  const $ = (id) => document.getElementById(id);

  /** An element: attributes (data-*, class, …) and children (strings become text nodes). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k === "onclick" || k === "onsubmit") node[k] = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(
        typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c,
      );
    }
    return node;
  }

  const itemPath = (ref) => itemPrefix + encodeURIComponent(ref);
  const api = (ref) => "/api/v1/items/" + encodeURIComponent(ref);

  function age(seconds) {
    if (seconds === null || seconds === undefined) return "";
    if (seconds < 90) return seconds + "s";
    if (seconds < 5400) return Math.round(seconds / 60) + "m";
    if (seconds < 172800) return Math.round(seconds / 3600) + "h";
    return Math.round(seconds / 86400) + "d";
  }

  function since(iso) {
    if (!iso) return "never";
    const s = Math.max(0, Math.round((Date.now() + skewMs - Date.parse(iso)) / 1000));
    return age(s) + " ago";
  }

  function say(text, ok) {
    const m = $("message");
    m.hidden = false;
    m.className = ok ? "" : "error";
    m.textContent = text;
  }

  async function post(path, body) {
    try {
      const res = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-the-loop-csrf": CSRF },
        body: JSON.stringify(body || {}),
      });
      const answer = await res.json().catch(() => ({ ok: false, message: res.statusText }));
      say(answer.message || res.statusText, res.ok && answer.ok);
      refresh();
      return res.ok && answer.ok;
    } catch (e) {
      say("the control could not be sent: " + e, false);
      return false;
    }
  }

  // ---- controls ----

  function replyForm(q) {
    const area = el("textarea", {
      name: "text",
      "data-testid": "reply-text",
      placeholder: "Your answer",
      required: true,
    });
    const form = el(
      "form",
      { "data-testid": "reply-form", "data-ref": q.ref },
      area,
      el("button", { type: "submit", "data-testid": "reply-send", text: "Reply" }),
    );
    form.onsubmit = async (ev) => {
      ev.preventDefault();
      if (!area.value.trim()) return;
      if (await post(api(q.ref) + "/reply", { text: area.value })) area.value = "";
    };
    return form;
  }

  function gateForm(g) {
    const outcomes = g.outcomes.length > 0 ? g.outcomes : ["approve", "request-changes"];
    const form = el("form", { "data-testid": "gate-form", "data-ref": g.ref });
    for (const outcome of outcomes) {
      const b = el("button", {
        type: "button",
        "data-testid": "gate-" + outcome,
        "data-outcome": outcome,
        text: outcome,
      });
      b.onclick = () => post(api(g.ref) + "/verdict", { outcome });
      form.append(b);
    }
    return form;
  }

  function sessionButtons(ref, session) {
    const box = el("span", { class: "controls", "data-ref": ref });
    const live = session && session.status !== "closed";
    const add = (action, show) => {
      if (!show) return;
      const b = el("button", {
        type: "button",
        "data-testid": "session-" + action,
        "data-ref": ref,
        text: action,
      });
      b.onclick = () => {
        if (
          action === "stop" &&
          !confirm("Stop " + ref + "? Its session is closed and its harness ended.")
        ) return;
        post(api(ref) + "/" + action, {});
      };
      box.append(b);
    };
    add("pause", live && session.status === "active");
    add("resume", live && session.status === "paused");
    add("stop", live);
    return box;
  }

  function resumeSuspension(id) {
    const b = el("button", {
      type: "button",
      "data-testid": "suspension-resume",
      "data-id": id,
      text: "resume",
    });
    b.onclick = () => post("/api/v1/suspensions/" + encodeURIComponent(id) + "/resume", {});
    return b;
  }

  // ---- attention ----

  const refLink = (ref) => el("a", { href: itemPath(ref), "data-testid": "item-link", text: ref });

  function questionLi(q) {
    return el(
      "li",
      { "data-testid": "question", "data-ref": q.ref },
      el("strong", { text: "Question" }),
      " from ",
      refLink(q.ref),
      " ",
      el("span", {
        class: "age",
        "data-testid": "question-age",
        text: "asked " + age(q.ageSeconds) + " ago",
      }),
      el("pre", { "data-testid": "question-text", text: q.question }),
      q.summary ? el("p", { class: "mute", text: q.summary }) : null,
      replyForm(q),
    );
  }

  function gateLi(g) {
    return el(
      "li",
      { "data-testid": "gate", "data-ref": g.ref },
      el("strong", { text: "Gate" }),
      " ",
      refLink(g.ref),
      " at ",
      el("code", { "data-testid": "gate-node", text: g.node }),
      " (" + g.loop + ", phase " + g.phase + ") ",
      el("span", { class: "age", text: g.since ? "since " + since(g.since) : "" }),
      gateForm(g),
    );
  }

  function suspensionLi(s) {
    return el(
      "li",
      { "data-testid": "suspension", "data-ref": s.ref, "data-id": s.id },
      el("strong", { text: "Suspended" }),
      " ",
      refLink(s.ref),
      " at " + s.point + ", hook ",
      el("code", { text: s.hook }),
      " ",
      el("span", { class: "age", text: "since " + since(s.since) }),
      el("pre", { class: "error", text: s.error }),
      el("span", {
        class: "mute",
        text: s.held + " held · " + s.mode + (s.resumed ? " · resumed by " + s.resumed.by : "") +
          " ",
      }),
      s.resumed ? null : resumeSuspension(s.id),
    );
  }

  function budgetLi(b) {
    return el(
      "li",
      { "data-testid": "budget-pause", "data-ref": b.ref, "data-id": b.id },
      el("strong", { text: "Paused by budget" }),
      " ",
      refLink(b.ref),
      " ",
      el("code", { text: b.budget }),
      " " + b.used + " of " + b.limit + (b.who ? " (" + b.who + ")" : "") + " ",
      el("span", { class: "age", text: "since " + since(b.since) + " " }),
      b.resumed ? null : resumeSuspension(b.id),
    );
  }

  function deadLi(d) {
    return el(
      "li",
      { "data-testid": "dead-session", "data-ref": d.ref },
      el("strong", { text: "Dead session" }),
      " ",
      refLink(d.ref),
      " (" + d.harness + ") " + d.why + " ",
      sessionButtons(d.ref, { status: d.status }),
    );
  }

  function failureLi(f) {
    return el(
      "li",
      { "data-testid": "failure" },
      el("span", { class: "age", text: since(f.ts) + " " }),
      el("code", { text: f.event }),
      " ",
      f.ref ? refLink(f.ref) : null,
      " ",
      el("span", { class: "error", text: f.message }),
    );
  }

  function fill(id, list, make) {
    $(id).replaceChildren(...list.map(make));
  }

  // ---- health ----

  function stale(fig) {
    if (fig.stale) return true;
    if (fig.staleAfterSeconds === null || !fig.at) return false;
    return (Date.now() + skewMs - Date.parse(fig.at)) / 1000 > fig.staleAfterSeconds;
  }

  function renderHealth(h) {
    const li = (key, label, fig) =>
      el("li", {
        "data-testid": "health-" + key,
        class: stale(fig) ? "stale" : "",
        title: fig.at ? "as of " + fig.at : "never seen",
      }, label);
    const p = h.poller;
    $("health").replaceChildren(
      li(
        "poller",
        p.running
          ? "poller: last cycle " + since(p.lastCycleAt) +
            (p.lagSeconds ? ", " + age(p.lagSeconds) + " late" : "")
          : "poller: not running",
        p,
      ),
      li(
        "webhook",
        h.webhook.running
          ? "webhook: last delivery " + since(h.webhook.lastDeliveryAt)
          : "webhook: not running",
        h.webhook,
      ),
      li(
        "rate-limit",
        "rate limit: " +
          (h.rateLimit.remaining === null ? "unknown" : h.rateLimit.remaining + " left"),
        h.rateLimit,
      ),
      li(
        "queue",
        "held " + h.queue.held + " · in flight " + h.queue.inFlight + " · inbox " +
          Math.round(h.queue.inboxBytes / 1024) + " KiB",
        h.queue,
      ),
      li("version", "v" + h.version, { stale: false, at: null, staleAfterSeconds: null }),
      li("uptime", "up " + age(h.uptime.seconds), h.uptime),
    );
  }

  // ---- overview ----

  function sessionText(s) {
    if (!s) return "none";
    return s.status + (s.liveness !== "headless" ? " · " + s.liveness : " · headless") +
      (s.awaitingInput ? " · asking" : "");
  }

  function usageText(u) {
    return u.map((b) => b.budget + " " + (b.used === null ? "?" : b.used) + "/" + b.limit).join(
      ", ",
    );
  }

  function itemRow(r) {
    return el(
      "tr",
      { "data-testid": "item-row", "data-ref": r.ref },
      el(
        "td",
        {},
        refLink(r.ref),
        " ",
        el("a", {
          href: r.url,
          rel: "noreferrer",
          target: "_blank",
          "data-testid": "github-link",
          text: "↗",
        }),
      ),
      el("td", { "data-testid": "item-title", text: r.title }),
      el("td", {
        "data-testid": "item-phase",
        text: r.phase
          ? r.phase + (r.loopStatus && r.loopStatus !== "active" ? " (" + r.loopStatus + ")" : "")
          : "—",
      }),
      el("td", { "data-testid": "item-node", text: r.node ? r.loop + ":" + r.node : "—" }),
      el("td", { "data-testid": "item-session", text: sessionText(r.session) }),
      el("td", { text: r.session ? r.session.harness : "" }),
      el("td", { class: "age", text: since(r.lastActivity) }),
      el("td", { "data-testid": "item-usage", text: usageText(r.usage) }),
      el("td", {}, sessionButtons(r.ref, r.session)),
    );
  }

  function hookRow(h) {
    return el(
      "tr",
      { "data-testid": "hook-row", "data-hook": h.hook, "data-point": h.point },
      el("td", { text: h.point || "—" }),
      el("td", { text: h.hook }),
      el("td", { text: h.calls }),
      el("td", { text: h.p50Ms === null ? "" : h.p50Ms }),
      el("td", { text: h.p99Ms === null ? "" : h.p99Ms }),
      el("td", { text: h.failures }),
      el("td", { text: h.refusals }),
      el("td", { text: h.timeouts }),
      el("td", {
        class: h.circuit === "closed" ? "" : "error",
        "data-testid": "hook-circuit",
        text: h.circuit,
      }),
    );
  }

  function renderState(s) {
    const a = s.attention;
    fill("questions", a.questions, questionLi);
    fill("gates", a.gates, gateLi);
    fill("suspensions", a.suspensions, suspensionLi);
    fill("budget-pauses", a.budgetPauses, budgetLi);
    fill("dead-sessions", a.deadSessions, deadLi);
    fill("failures", a.failures, failureLi);
    $("failures-count").textContent = String(a.failures.length);
    const waiting = a.questions.length + a.gates.length + a.suspensions.length +
      a.budgetPauses.length + a.deadSessions.length;
    $("attention-empty").hidden = waiting > 0;
    fill("items-body", s.items, itemRow);
    $("items-empty").hidden = s.items.length > 0;
    fill("hooks-body", s.hooks, hookRow);
    $("hooks-empty").hidden = s.hooks.length > 0;
    renderHealth(s.health);
    $("overview").hidden = false;
  }

  // ---- item page ----

  function trailLi(e) {
    const fields = Object.entries(e.fields).map(([k, v]) =>
      k + "=" + (typeof v === "string" ? v : JSON.stringify(v))
    ).join(" ");
    return el(
      "li",
      { "data-testid": "trail-event", "data-event": e.event, "data-offset": e.offset },
      el("span", { class: "age", text: e.ts + " " }),
      el("code", { text: e.event }),
      " ",
      el("span", { class: e.level === "error" ? "error" : "mute", text: fields }),
    );
  }

  function mountTerminal(v) {
    const box = $("terminal");
    const note = $("terminal-note");
    if (!v.terminal.available) {
      note.textContent = v.terminal.mode === "off"
        ? "The web terminal is off (ui.terminal)."
        : "No live tmux session to show.";
      return;
    }
    const ws = (location.protocol === "https:" ? "wss://" : "ws://") + location.host +
      v.terminal.path;
    if (mounted === ws) return;
    if (globalThis.theLoopTerminal && typeof globalThis.theLoopTerminal.mount === "function") {
      mounted = ws;
      note.textContent = "";
      globalThis.theLoopTerminal.mount(box, ws, { readOnly: v.terminal.mode !== "interactive" });
    } else {
      note.textContent = "This build has no web terminal: attach with `the-loop sessions attach`.";
    }
  }

  function renderItem(v) {
    const r = v.item;
    $("item-title").replaceChildren(
      el("span", { "data-testid": "item-ref", text: r.ref }),
      " ",
      el("a", { href: r.url, rel: "noreferrer", target: "_blank", text: "↗" }),
      " ",
      el("span", { text: r.title }),
    );
    $("item-facts").replaceChildren(
      el("span", { "data-testid": "item-phase", text: "phase " + (r.phase || "—") }),
      " · node " + (r.node || "—") + " · session " + sessionText(r.session) +
        (r.session ? " · " + r.session.harness : "") +
        " · last activity " + since(r.lastActivity) +
        (r.usage.length ? " · " + usageText(r.usage) : ""),
    );
    $("item-controls").replaceChildren(sessionButtons(r.ref, r.session));
    const att = [];
    if (v.question) att.push(questionLi(v.question));
    if (v.gate) att.push(gateLi(v.gate));
    if (v.suspension) att.push(suspensionLi(v.suspension));
    if (v.budgetPause) att.push(budgetLi(v.budgetPause));
    $("item-attention").replaceChildren(el("ul", { id: "item-attention-list" }, ...att));
    fill(
      "history",
      v.history,
      (m) =>
        el("li", {
          text: m.at + " " + (m.from || "·") + " → " + m.to +
            (m.outcome ? " (" + m.outcome + ")" : "") + " by " + m.by,
        }),
    );
    fill(
      "hook-decisions-body",
      v.hooks.slice().reverse(),
      (h) =>
        el(
          "tr",
          { "data-testid": "hook-decision" },
          el("td", { text: h.ts }),
          el("td", { text: h.point }),
          el("td", { text: h.hook }),
          el("td", { text: h.disposition }),
          el("td", { text: h.durationMs === null ? "" : h.durationMs }),
          el("td", { text: h.changed.join(", ") }),
        ),
    );
    fill("trail", v.trail.slice().reverse(), trailLi);
    $("item").hidden = false;
    mountTerminal(v);
  }

  // ---- loading and the stream ----

  async function load() {
    const res = await fetch(itemRef === null ? "/api/v1/state" : api(itemRef), {
      cache: "no-store",
    });
    if (itemRef !== null && res.status === 404) {
      $("item").hidden = true;
      $("missing").hidden = false;
      return null;
    }
    if (!res.ok) throw new Error("the snapshot could not be read: " + res.status);
    const data = await res.json();
    skewMs = Date.parse(data.generatedAt) - Date.now();
    if (itemRef === null) renderState(data);
    else renderItem(data);
    last = data;
    return data;
  }

  async function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      await load();
    } catch (e) {
      say(String(e), false);
    } finally {
      busy = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(refresh, DEBOUNCE_MS);
  }

  function follow(from) {
    const stream = $("stream");
    const source = new EventSource("/api/v1/events?from=" + from);
    source.onopen = () => {
      stream.textContent = "live";
      stream.className = "";
    };
    source.onerror = () => {
      stream.textContent = "disconnected: reconnecting…";
      stream.className = "stale";
    };
    source.addEventListener("record", (ev) => {
      if (itemRef !== null) {
        try {
          if (JSON.parse(ev.data).work_item !== itemRef) return;
        } catch { /* not JSON: refresh anyway */ }
      }
      schedule();
    });
  }

  async function start() {
    try {
      await load();
    } catch (e) {
      say(String(e), false);
    }
    // the overview's snapshot says where the log ended; an item page follows from its end too
    follow(last && last.events ? last.events.end : "");
    // figures go stale by the clock even when nothing happens
    setInterval(() => {
      if (last && last.health) renderHealth(last.health);
    }, STALE_TICK_MS);
  }

  start();
})();
