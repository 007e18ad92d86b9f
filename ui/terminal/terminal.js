/**
 * The status page's web terminal, in the browser: `window.theLoopTerminal.mount(element, wsUrl,
 * { readOnly })` shows the tmux pane a work item's harness runs in, with xterm.js
 * (`/assets/xterm.js` and `/assets/xterm.css`, loaded beside this file when the page has not),
 * fed by the WebSocket at `wsUrl` (relative to the page; see `ui/terminal/types.ts` for the
 * messages). Read-only (the default) takes no input and keeps the pane's size; interactive sends
 * what is typed and the terminal's size. `element.dataset.terminal` says where it is:
 * `loading`, `connecting`, `live`, `closed` (`element.dataset.terminalReason` then says why).
 * Builds no HTML from data: the server's text reaches the page only through xterm.js's own
 * rendering, never as markup.
 *
 * @module
 */
(() => {
  "use strict";
  const here = document.currentScript && document.currentScript.src
    ? document.currentScript.src
    : location.href;
  const asset = (name) => new URL(name, here).href;
  let loading;

  /** xterm.js (and its fit addon) with its stylesheet, once per page. */
  function loadXterm() {
    if (globalThis.Terminal) return Promise.resolve();
    if (loading) return loading;
    loading = new Promise((resolve, reject) => {
      if (!document.querySelector("link[data-the-loop-xterm]")) {
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = asset("xterm.css");
        link.dataset.theLoopXterm = "";
        document.head.appendChild(link);
      }
      const script = document.createElement("script");
      script.src = asset("xterm.js");
      script.onload = () => resolve();
      script.onerror = () => reject(new Error("could not load /assets/xterm.js"));
      document.head.appendChild(script);
    });
    return loading;
  }

  /** `wsUrl` as an absolute ws:// or wss:// URL. */
  function socketUrl(wsUrl) {
    const url = new URL(wsUrl, location.href);
    if (url.protocol === "http:") url.protocol = "ws:";
    if (url.protocol === "https:") url.protocol = "wss:";
    return url.href;
  }

  function mount(element, wsUrl, options) {
    const readOnly = !options || options.readOnly !== false;
    element.dataset.terminal = "loading";
    let closed = false;
    let term;
    let ws;
    let observer;
    const setState = (state, reason) => {
      element.dataset.terminal = state;
      if (reason !== undefined) element.dataset.terminalReason = String(reason);
    };
    const send = (m) => {
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m));
    };
    const start = () => {
      if (closed) return;
      term = new globalThis.Terminal({
        cursorBlink: !readOnly,
        disableStdin: readOnly,
        scrollback: 5000,
        fontSize: 13,
        convertEol: false,
      });
      const fit = globalThis.FitAddon ? new globalThis.FitAddon.FitAddon() : undefined;
      if (fit) term.loadAddon(fit);
      term.open(element);
      setState("connecting");
      ws = new WebSocket(socketUrl(wsUrl));
      ws.binaryType = "arraybuffer";
      const refit = () => {
        if (readOnly || !fit) return;
        fit.fit();
        send({ type: "resize", cols: term.cols, rows: term.rows });
      };
      ws.onmessage = (e) => {
        if (typeof e.data !== "string") {
          term.write(new Uint8Array(e.data));
          return;
        }
        let m;
        try {
          m = JSON.parse(e.data);
        } catch {
          return;
        }
        if (m.type === "hello") {
          term.reset();
          term.resize(m.cols, m.rows);
          term.write(m.screen);
          setState("live");
          refit();
        } else if (m.type === "size") {
          if (m.cols !== term.cols || m.rows !== term.rows) term.resize(m.cols, m.rows);
        } else if (m.type === "exit") {
          setState("closed", m.reason);
        } else if (m.type === "notice") {
          element.dataset.terminalNotice = String(m.text);
        }
      };
      ws.onclose = () => {
        if (element.dataset.terminal !== "closed") setState("closed", "the connection closed");
      };
      if (!readOnly) {
        term.onData((data) => send({ type: "input", data }));
        if (globalThis.ResizeObserver) {
          observer = new ResizeObserver(() => refit());
          observer.observe(element);
        }
      }
    };
    loadXterm().then(start, (err) => setState("closed", err.message));
    return {
      close() {
        closed = true;
        if (observer) observer.disconnect();
        if (ws) ws.close();
        if (term) term.dispose();
      },
    };
  }

  globalThis.theLoopTerminal = { mount };
})();
