// Tessera's web console: Pinot's console pages over Tessera's REST API (see mod.rs).
"use strict";

// ---------------------------------------------------------------- the REST API

const AUTH_KEY = "tessera.console.auth";

/** Calls the controller; resolves to the parsed body, rejects with Pinot's error text. */
async function api(method, path, body) {
  const headers = {};
  const auth = sessionStorage.getItem(AUTH_KEY);
  if (auth) headers.Authorization = auth;
  let payload;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload });
  const text = await res.text();
  let parsed = text;
  try { parsed = JSON.parse(text); } catch (_) { /* plain text */ }
  if (res.status === 401 && location.hash !== "#/login") {
    location.hash = "#/login";
  }
  if (!res.ok) {
    const why = (parsed && (parsed.error || parsed.message || parsed._message)) || text || res.statusText;
    const err = new Error(`${res.status}: ${why}`);
    err.status = res.status;
    throw err;
  }
  return parsed;
}

const enc = encodeURIComponent;

/** Fetches `path` with the login's credentials and saves it as `name` (a plain link would not
 * carry them). */
async function download(path, name) {
  const headers = {};
  const auth = sessionStorage.getItem(AUTH_KEY);
  if (auth) headers.Authorization = auth;
  const res = await fetch(path, { headers });
  if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
  const a = el("a", { href: URL.createObjectURL(await res.blob()), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

const sleep = (ms) => new Promise(r => setTimeout(r, ms));

// ---------------------------------------------------------------- small DOM helpers

/** Creates an element: el("div", {class: "x", onclick: f}, child, "text", ...). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

let routeToken = 0;

/** A page's renderer for the route being drawn: once the user has moved on to another route, a
 * late answer of this one draws nothing. */
function pageFor(token) {
  return (...children) => {
    if (token === routeToken) document.getElementById("page").replaceChildren(...children.flat());
  };
}

function toast(text, ms = 4000) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.classList.remove("hidden");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.add("hidden"), ms);
}

/** A modal dialog; `onOk` returns a promise, its rejection is shown in the dialog. */
function dialog(title, body, onOk, okText = "OK") {
  const d = document.getElementById("dialog");
  document.getElementById("dialog-title").textContent = title;
  document.getElementById("dialog-body").replaceChildren(...[body].flat());
  const error = document.getElementById("dialog-error");
  error.textContent = "";
  const ok = document.getElementById("dialog-ok");
  const cancel = document.getElementById("dialog-cancel");
  ok.textContent = okText;
  ok.disabled = false;
  const close = () => d.classList.add("hidden");
  cancel.onclick = close;
  ok.onclick = async () => {
    ok.disabled = true;
    error.textContent = "";
    try {
      await onOk();
      close();
    } catch (e) {
      error.textContent = e.message;
    } finally {
      ok.disabled = false;
    }
  };
  d.classList.remove("hidden");
}

function formatBytes(n) {
  if (n === undefined || n === null || n < 0) return "-";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(2) : n} ${units[i]}`;
}

const PAGE_ROWS = 500;

/** A grid of `rows` (arrays) under `columns`; sortable by clicking a header; drawn a page of
 * PAGE_ROWS rows at a time, so a large answer never freezes the page. */
function grid(columns, rows, opts = {}) {
  let sortCol = -1, asc = true, first = 0;
  const body = el("tbody");
  const pager = el("div", { class: "toolbar pager" });
  const draw = () => {
    const shown = rows.slice();
    if (sortCol >= 0) {
      shown.sort((a, b) => {
        const x = a[sortCol], y = b[sortCol];
        const c = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return asc ? c : -c;
      });
    }
    const last = Math.min(first + PAGE_ROWS, shown.length);
    body.replaceChildren(...shown.slice(first, last).map(r => el("tr", {}, r.map(v => cell(v)))));
    if (shown.length > PAGE_ROWS) {
      pager.replaceChildren(
        el("button", { disabled: first === 0, onclick: () => { first = Math.max(0, first - PAGE_ROWS); draw(); } }, "Previous"),
        el("span", { class: "muted" }, `rows ${first + 1}–${last} of ${shown.length}`),
        el("button", { disabled: last >= shown.length, onclick: () => { first += PAGE_ROWS; draw(); } }, "Next"));
    }
  };
  const cell = (v) => {
    if (v instanceof Node) return el("td", {}, v);
    if (v === null || v === undefined) return el("td", { class: "null" }, "null");
    return el("td", {}, typeof v === "object" ? JSON.stringify(v) : String(v));
  };
  const head = el("tr", {}, columns.map((c, i) => el("th", {
    class: "sortable",
    title: "Sort",
    onclick: () => { asc = sortCol === i ? !asc : true; sortCol = i; first = 0; draw(); },
  }, c)));
  draw();
  return el("div", { class: "scroll" }, el("table", { class: "grid", id: opts.id }, el("thead", {}, head), body), pager);
}

// ---------------------------------------------------------------- routing

const routes = [
  [/^#?\/?$/, home, "home"],
  [/^#\/query(\?.*)?$/, queryConsole, "query"],
  [/^#\/tables\/?$/, tables, "tables"],
  [/^#\/tenants\/table\/([^/]+)\/([^/]+)$/, segmentPage, "tables"],
  [/^#\/tenants\/table\/([^/]+)$/, tablePage, "tables"],
  [/^#\/logs\/?$/, logs, "logs"],
  [/^#\/minion-task-manager\/?$/, taskManager, "tasks"],
  [/^#\/minion-task-manager\/task\/([^/]+)$/, taskPage, "tasks"],
  [/^#\/login$/, login, ""],
];

async function route() {
  const hash = location.hash || "#/";
  const page = pageFor(++routeToken);
  for (const [re, draw, nav] of routes) {
    const m = hash.match(re);
    if (!m) continue;
    document.querySelectorAll("header nav a").forEach(a => a.classList.toggle("active", a.dataset.nav === nav));
    try {
      await draw(page, ...m.slice(1).map(x => x && decodeURIComponent(x)));
    } catch (e) {
      page(el("p", { class: "error", id: "page-error" }, e.message));
    }
    return;
  }
  page(el("p", { class: "error" }, `No page at ${hash}`));
}

// ---------------------------------------------------------------- login (Pinot's BASIC workflow)

async function login(page) {
  const user = el("input", { id: "login-user", autocomplete: "username" });
  const pass = el("input", { id: "login-password", type: "password", autocomplete: "current-password" });
  const error = el("p", { class: "error" });
  const submit = async (ev) => {
    ev.preventDefault();
    const token = "Basic " + btoa(`${user.value}:${pass.value}`);
    const res = await fetch("auth/verify/v2", { headers: { Authorization: token } });
    if (res.ok && (await res.text()).trim() === "true") {
      sessionStorage.setItem(AUTH_KEY, token);
      showUser();
      location.hash = "#/";
    } else {
      error.textContent = "Invalid username or password";
    }
  };
  page(el("form", { class: "login", onsubmit: submit },
    el("h2", {}, "Log in"),
    el("label", {}, "Username", user),
    el("label", {}, "Password", pass),
    el("button", { class: "primary", type: "submit", id: "login-submit" }, "Log in"),
    error));
}

function showUser() {
  const auth = sessionStorage.getItem(AUTH_KEY);
  const span = document.getElementById("user");
  if (!auth) { span.replaceChildren(); return; }
  const name = atob(auth.slice(6)).split(":")[0];
  span.replaceChildren(name, " ", el("button", {
    onclick: () => { sessionStorage.removeItem(AUTH_KEY); location.hash = "#/login"; showUser(); },
  }, "Log out"));
}

// ---------------------------------------------------------------- cluster manager (home)

async function home(page) {
  const [{ instances }, tenants, { tables: names }] = await Promise.all([
    api("GET", "instances"), api("GET", "tenants"), api("GET", "tables"),
  ]);
  const details = await Promise.all(instances.map(i => api("GET", `instances/${enc(i)}`).catch(() => ({ instanceName: i }))));
  const byType = (t) => details.filter(d => (d.type || d.instanceName.split("_")[0]).toUpperCase() === t);
  const roles = [["Controllers", "CONTROLLER"], ["Brokers", "BROKER"], ["Servers", "SERVER"], ["Minions", "MINION"]];
  const tenantNames = [...new Set([...(tenants.SERVER_TENANTS || []), ...(tenants.BROKER_TENANTS || [])])];
  const tableRows = await tableSummaries(names);
  page(
    el("h2", {}, "Cluster Manager"),
    el("div", { class: "counts" },
      roles.map(([label, t]) => el("div", { class: "count", id: `count-${t.toLowerCase()}` }, el("b", {}, byType(t).length), label)),
      el("div", { class: "count", id: "count-tenants" }, el("b", {}, tenantNames.length), "Tenants"),
      el("div", { class: "count", id: "count-tables" }, el("b", {}, names.length), "Tables")),
    roles.filter(([, t]) => byType(t).length).map(([label, t]) => el("section", { class: "card" },
      el("h3", {}, label),
      grid(["Instance Name", "Host", "Port", "Tags", "Status"], byType(t).map(d => [
        d.instanceName, d.hostName, d.port, (d.tags || []).join(", "),
        el("span", { class: d.online === false ? "status-bad" : "status-good" },
          d.online === false ? "Dead" : (d.enabled === false ? "Disabled" : "Alive")),
      ]), { id: `instances-${t.toLowerCase()}` }))),
    el("section", { class: "card" }, el("h3", {}, "Tenants"),
      grid(["Tenant Name", "Server", "Broker"], tenantNames.map(n => [
        n, (tenants.SERVER_TENANTS || []).includes(n) ? "yes" : "", (tenants.BROKER_TENANTS || []).includes(n) ? "yes" : "",
      ]))),
    el("section", { class: "card" }, el("h3", {}, "Tables"), tablesGrid(tableRows)));
}

// ---------------------------------------------------------------- tables

/** Name, size, segment count and status (external view against ideal state) of each table. */
async function tableSummaries(names) {
  return Promise.all(names.map(async (t) => {
    const [size, ideal, external] = await Promise.all([
      api("GET", `tables/${enc(t)}/size`).catch(() => null),
      api("GET", `tables/${enc(t)}/idealstate`).catch(() => ({})),
      api("GET", `tables/${enc(t)}/externalview`).catch(() => ({})),
    ]);
    let segments = 0, bad = 0;
    for (const type of ["OFFLINE", "REALTIME"]) {
      const want = ideal[type] || {};
      const have = external[type] || {};
      for (const [seg, servers] of Object.entries(want)) {
        segments++;
        const seen = have[seg] || {};
        if (Object.keys(servers).some(s => seen[s] !== "ONLINE" && seen[s] !== "CONSUMING")) bad++;
      }
    }
    return { name: t, size: size ? size.reportedSizeInBytes : -1, segments, status: bad ? "BAD" : "GOOD" };
  }));
}

function tablesGrid(rows) {
  return grid(["Table Name", "Reported Size", "Number of Segments", "Status"], rows.map(r => [
    el("a", { href: `#/tenants/table/${enc(r.name)}` }, r.name),
    formatBytes(r.size), r.segments,
    el("span", { class: r.status === "GOOD" ? "status-good" : "status-bad" }, r.status),
  ]), { id: "tables-grid" });
}

async function tables(page) {
  const { tables: names } = await api("GET", "tables");
  page(el("h2", {}, "Tables"), el("section", { class: "card" }, tablesGrid(await tableSummaries(names))));
}

/** The table's configs by type: [["OFFLINE", config], ...]. */
async function configsOf(table) {
  const all = await api("GET", `tables/${enc(table)}`);
  return ["OFFLINE", "REALTIME"].filter(t => all[t]).map(t => [t, all[t]]);
}

/** A follow-up an Edit Table answer asked for, shown on the table page it returns to. */
let pendingFollowUp = null;

async function tablePage(page, table) {
  const [configs, schema, size, ideal, external] = await Promise.all([
    configsOf(table),
    api("GET", `tables/${enc(table)}/schema`).catch(() => null),
    api("GET", `tables/${enc(table)}/size`).catch(() => null),
    api("GET", `tables/${enc(table)}/idealstate`).catch(() => ({})),
    api("GET", `tables/${enc(table)}/externalview`).catch(() => ({})),
  ]);
  if (!configs.length) throw new Error(`Table ${table} not found`);
  const realtime = configs.some(([t]) => t === "REALTIME");
  const pause = realtime ? await api("GET", `tables/${enc(table)}/pauseStatus`).catch(() => null) : null;
  const segRows = [];
  for (const [type] of configs) {
    for (const [seg, servers] of Object.entries(ideal[type] || {})) {
      const seen = (external[type] || {})[seg] || {};
      const good = Object.keys(servers).every(s => seen[s] === "ONLINE" || seen[s] === "CONSUMING");
      segRows.push([
        el("a", { href: `#/tenants/table/${enc(table)}/${enc(seg)}` }, seg), type,
        Object.keys(servers).map(s => `${s}: ${seen[s] || "OFFLINE"}`).join(", "),
        el("span", { class: good ? "status-good" : "status-bad" }, good ? "GOOD" : "BAD"),
      ]);
    }
  }
  const result = el("div", { id: "action-result", class: "muted", "aria-live": "polite" });
  if (pendingFollowUp && pendingFollowUp.table === table) {
    showFollowUp(table, configs, pendingFollowUp.followUp, result);
    pendingFollowUp = null;
  }
  page(
    el("h2", {}, table),
    el("div", { class: "toolbar" },
      el("button", { id: "edit-table", onclick: () => editTable(table, configs) }, "Edit Table"),
      schema && el("button", { id: "edit-schema", onclick: () => editSchema(table, schema) }, "Edit Schema"),
      el("button", { id: "reload-segments", title: "Reloads all segments of the table to apply changes such as indexing, column default values, etc", onclick: () => reloadAll(table, configs, result) }, "Reload All Segments"),
      configs.some(([t]) => t === "OFFLINE") && el("button", { id: "upload-segment", onclick: () => uploadSegment(table) }, "Upload Segment"),
      configs.some(([t]) => t === "OFFLINE") && el("button", { id: "ingest-file", onclick: () => ingestFile(table) }, "Ingest File"),
      realtime && el("button", { id: "pause-resume", onclick: () => pauseResume(table, pause) },
        pause && pause.pauseFlag ? "Resume Consumption" : "Pause Consumption"),
      el("button", { id: "delete-table", class: "danger", onclick: () => deleteTable(table, schema) }, "Delete Table")),
    result,
    el("section", { class: "card" },
      el("h3", {}, "Summary"),
      grid(["Table Name", "Type", "Reported Size", "Estimated Size", "Number of Segments"], configs.map(([type]) => [
        table, type, formatBytes(size && size.reportedSizeInBytes), formatBytes(size && size.estimatedSizeInBytes),
        Object.keys(ideal[type] || {}).length,
      ]), { id: "table-summary" }),
      pause && el("p", { id: "pause-status" }, `Consumption: ${pause.pauseFlag ? "paused" : "running"}`,
        pause.consumingSegments && pause.consumingSegments.length ? ` (consuming: ${pause.consumingSegments.join(", ")})` : "")),
    el("section", { class: "card" }, el("h3", {}, "Segments"),
      grid(["Segment Name", "Type", "Replicas", "Status"], segRows, { id: "segments-grid" })),
    el("section", { class: "card" }, el("h3", {}, "Table Config"),
      el("pre", { class: "json", id: "table-config" }, JSON.stringify(configs.length === 1 ? configs[0][1] : Object.fromEntries(configs), null, 2))),
    schema && el("section", { class: "card" }, el("h3", {}, "Schema"),
      el("pre", { class: "json", id: "table-schema" }, JSON.stringify(schema, null, 2))));
  await limitToPermissions(table);
}

/** Disables the table page's buttons the logged-in user may not use (`GET /auth/verify` with
 * the table and access type; always allowed without access control). */
async function limitToPermissions(table) {
  const may = async (access) => {
    try {
      return String(await api("GET", `auth/verify?tableName=${enc(table)}&accessType=${access}`)) === "true";
    } catch (_) { return false; }
  };
  const [update, create, remove] = await Promise.all([may("UPDATE"), may("CREATE"), may("DELETE")]);
  const rules = [["#edit-table", update], ["#edit-schema", update], ["#reload-segments", create],
    ["#upload-segment", create], ["#ingest-file", create], ["#pause-resume", create], ["#delete-table", remove]];
  for (const [css, allowed] of rules) {
    const b = document.querySelector(css);
    if (b && !allowed) {
      b.disabled = true;
      b.title = "You do not have permission for this";
    }
  }
}

/** What an Edit Table answer's `requiredFollowUp` asks for, with a button that does it. */
function showFollowUp(table, configs, followUp, result) {
  const text = {
    reload: "The change takes effect on existing segments after a reload.",
    "pause-resume": "The change takes effect after consumption is paused and resumed.",
    refresh: "The change takes effect when the segments are pushed again (refreshed).",
    "re-bootstrap": "The change takes effect when the table's data is loaded again.",
  }[followUp];
  if (!text) return;
  const act = {
    reload: ["Reload All Segments", () => reloadAll(table, configs, result, true)],
    "pause-resume": ["Pause and Resume Consumption", async () => {
      await api("POST", `tables/${enc(table)}/pauseConsumption`);
      await api("POST", `tables/${enc(table)}/resumeConsumption`);
      result.replaceChildren("Consumption paused and resumed.");
    }],
  }[followUp];
  result.replaceChildren(el("span", { id: "follow-up" }, `Required follow-up: ${followUp}. ${text} `),
    act && el("button", { id: "follow-up-do", onclick: () => act[1]().catch(e => toast(e.message)) }, act[0]));
}

/** Edit Table: the config as JSON; Save sends `PUT /tables/{t}` (per type of a hybrid table). */
function editTable(table, configs) {
  const choose = configs.length > 1 ? el("select", { id: "edit-type", "aria-label": "Table type" }, configs.map(([t]) => el("option", { value: t }, t))) : null;
  const editor = el("textarea", { class: "json-editor", id: "config-editor", spellcheck: "false", "aria-label": "Table config JSON" });
  editor.value = JSON.stringify(configs[0][1], null, 2);
  if (choose) {
    choose.onchange = () => {
      editor.value = JSON.stringify(configs.find(([t]) => t === choose.value)[1], null, 2);
    };
  }
  dialog(`Edit Table ${table}`, [choose, editor], async () => {
    let parsed;
    try { parsed = JSON.parse(editor.value); } catch (e) { throw new Error(`Invalid JSON: ${e.message}`); }
    const answer = await api("PUT", `tables/${enc(table)}`, parsed);
    toast(answer.status || "Table config updated");
    if (answer.requiredFollowUp && answer.requiredFollowUp !== "none") {
      pendingFollowUp = { table, followUp: answer.requiredFollowUp };
    }
    await route();
  }, "Save");
}

/** Edit Schema: `PUT /schemas/{name}` (`?reload=true` when asked). */
function editSchema(table, schema) {
  const editor = el("textarea", { class: "json-editor", id: "schema-editor", spellcheck: "false", "aria-label": "Schema JSON" });
  editor.value = JSON.stringify(schema, null, 2);
  const reload = el("input", { type: "checkbox", id: "schema-reload" });
  dialog(`Edit Schema ${schema.schemaName}`, [editor, el("label", {}, reload, " Reload all segments of the table")], async () => {
    let parsed;
    try { parsed = JSON.parse(editor.value); } catch (e) { throw new Error(`Invalid JSON: ${e.message}`); }
    const q = reload.checked ? "?reload=true" : "";
    const answer = await api("PUT", `schemas/${enc(schema.schemaName)}${q}`, parsed);
    toast(answer.status || "Schema updated");
    if (answer.requiredFollowUp && answer.requiredFollowUp !== "none") {
      pendingFollowUp = { table, followUp: answer.requiredFollowUp };
    }
    await route();
  }, "Save");
}

/** Follows reload job `id` until it is done, drawing its progress into `line`. */
async function followReload(id, line) {
  for (;;) {
    const s = await api("GET", `segments/segmentReloadStatus/${enc(id)}`);
    const failures = (s.segmentReloadFailures || []).map(f => ` ${f.segmentName}: ${f.errorMessage}`).join(";");
    line.textContent = `Reload job ${id}: ${s.status} (${s.successCount} of ${s.totalSegmentCount} segments reloaded` +
      `${s.failureCount ? `, ${s.failureCount} failed:${failures}` : ""})`;
    if (s.status !== "IN_PROGRESS") return s;
    await sleep(500);
  }
}

/** Reload All Segments: `POST /segments/{t}/reload?type=` for each type, then each job's status
 * until done. */
function reloadAll(table, configs, result, confirmed) {
  const go = async () => {
    const jobs = [];
    for (const [type] of configs) {
      const answer = await api("POST", `segments/${enc(table)}/reload?type=${type}`);
      let status = answer.status;
      try { status = JSON.parse(answer.status); } catch (_) { /* text */ }
      if (status && typeof status === "object") {
        for (const job of Object.values(status)) jobs.push(job.reloadJobId);
      }
    }
    const lines = jobs.map(id => el("div", { class: "reload-job", "data-job": id }, `Reload job ${id}: submitted`));
    result.replaceChildren(...lines);
    await Promise.all(jobs.map((id, i) => followReload(id, lines[i])));
  };
  if (confirmed) return go();
  dialog("Reload All Segments", el("p", {}, `Reload all segments of ${table}?`), async () => { go().catch(e => toast(e.message)); }, "Reload");
}

/** Pause or resume a real-time table's consumption (`consumeFrom` on resume). */
function pauseResume(table, pause) {
  if (!pause || !pause.pauseFlag) {
    const comment = el("input", { id: "pause-comment", placeholder: "Comment (optional)", "aria-label": "Comment" });
    dialog("Pause Consumption", [el("p", {}, `Pause consumption of ${table}?`), comment], async () => {
      const q = comment.value ? `?comment=${enc(comment.value)}` : "";
      const answer = await api("POST", `tables/${enc(table)}/pauseConsumption${q}`);
      toast(answer.comment || "Consumption paused");
      await route();
    }, "Pause");
    return;
  }
  const from = el("select", { id: "consume-from", "aria-label": "Consume from" },
    el("option", { value: "" }, "where it stopped"), el("option", { value: "smallest" }, "smallest"), el("option", { value: "largest" }, "largest"));
  dialog("Resume Consumption", [el("p", {}, `Resume consumption of ${table} from `), from], async () => {
    const q = from.value ? `?consumeFrom=${from.value}` : "";
    const answer = await api("POST", `tables/${enc(table)}/resumeConsumption${q}`);
    toast(answer.comment || "Consumption resumed");
    await route();
  }, "Resume");
}

/** Upload Segment: a segment tar.gz to `POST /segments?tableName=`. */
function uploadSegment(table) {
  const file = el("input", { type: "file", id: "segment-file", accept: ".tar.gz,.tgz,application/gzip", "aria-label": "Segment archive" });
  dialog(`Upload a segment to ${table}`, [el("p", {}, "A segment archive (tar.gz) built by tessera segment create"), file], async () => {
    if (!file.files.length) throw new Error("Choose a segment archive");
    const form = new FormData();
    form.append(file.files[0].name, file.files[0]);
    const answer = await api("POST", `segments?tableName=${enc(table)}&tableType=OFFLINE`, form);
    toast(answer.status || "Segment uploaded");
    await route();
  }, "Upload");
}

/** Ingest File: a CSV, JSON-lines, Parquet, Avro or ORC file built into a segment by the controller. */
function ingestFile(table) {
  const file = el("input", { type: "file", id: "ingest-file-input", "aria-label": "Input file" });
  const format = el("select", { id: "ingest-format", "aria-label": "Input format" },
    ["csv", "json", "parquet", "avro", "orc"].map(f => el("option", { value: f }, f.toUpperCase())));
  file.onchange = () => {
    const name = file.files.length ? file.files[0].name.toLowerCase().replace(/\.(gz|zst)$/, "") : "";
    const ext = name.split(".").pop();
    if (["csv", "json", "parquet", "avro", "orc"].includes(ext)) format.value = ext;
  };
  dialog(`Ingest a file into ${table}`, [file, el("label", {}, " Format ", format)], async () => {
    if (!file.files.length) throw new Error("Choose a file");
    const form = new FormData();
    form.append("file", file.files[0]);
    const batch = JSON.stringify({ inputFormat: format.value });
    const answer = await api("POST", `ingestFromFile?tableNameWithType=${enc(table)}_OFFLINE&batchConfigMapStr=${enc(batch)}`, form);
    toast(answer.status || "File ingested");
    await route();
  }, "Ingest");
}

/** Delete Table (and, if asked, its schema). */
function deleteTable(table, schema) {
  const alsoSchema = el("input", { type: "checkbox", id: "delete-schema" });
  dialog("Delete Table", [el("p", {}, `Delete table ${table} and all its segments?`),
    schema && el("label", {}, alsoSchema, ` Also delete schema ${schema.schemaName}`)], async () => {
    await api("DELETE", `tables/${enc(table)}`);
    if (schema && alsoSchema.checked) await api("DELETE", `schemas/${enc(schema.schemaName)}`);
    toast(`Table ${table} deleted`);
    location.hash = "#/tables";
  }, "Delete");
}

async function segmentPage(page, table, segment) {
  const meta = await api("GET", `segments/${enc(table)}/${enc(segment)}/metadata?columns=*`);
  const result = el("div", { id: "action-result", class: "muted", "aria-live": "polite" });
  const time = (v) => v === null || v === undefined ? "-" : v;
  page(
    el("h2", {}, el("a", { href: `#/tenants/table/${enc(table)}` }, table), " / ", segment),
    el("div", { class: "toolbar" },
      el("button", { id: "reload-segment", onclick: async () => {
        try {
          const answer = await api("POST", `segments/${enc(table)}/${enc(segment)}/reload`);
          const id = (answer.status.match(/job id: ([^,]+)/) || [])[1];
          const line = el("div", { class: "reload-job" }, answer.status);
          result.replaceChildren(line);
          if (id) await followReload(id, line);
        } catch (e) { toast(e.message); }
      } }, "Reload Segment"),
      el("button", { id: "download-segment", onclick: () => download(`segments/${enc(table)}/${enc(segment)}`, `${segment}.tar.gz`).catch(e => toast(e.message)) }, "Download"),
      el("button", { class: "danger", id: "delete-segment", onclick: () => dialog("Delete Segment", el("p", {}, `Delete segment ${segment}?`), async () => {
        await api("DELETE", `segments/${enc(table)}/${enc(segment)}`);
        location.hash = `#/tenants/table/${enc(table)}`;
      }, "Delete") }, "Delete Segment")),
    result,
    el("section", { class: "card" }, el("h3", {}, "Summary"),
      grid(["Total Docs", "Size", "CRC", "Created", "Time Column", "Start Time", "End Time", "Servers"], [[
        meta.totalDocs, formatBytes(meta.sizeInBytes), meta.crc, meta.creationTimeReadable,
        meta.timeColumn || "-", time(meta.startTime), time(meta.endTime), (meta.servers || []).join(", "),
      ]], { id: "segment-summary" }),
      meta.downloadUrl && el("p", { class: "muted" }, `Archive at ${meta.downloadUrl}`)),
    el("section", { class: "card" }, el("h3", {}, "Columns"),
      grid(["Column", "Data Type", "Field Type", "Single Value", "Cardinality", "Min", "Max", "Sorted", "Dictionary", "Nulls", "Indexes", "Size"],
        meta.columns.map(c => [
          c.name, c.dataType, c.fieldType, c.singleValue, c.cardinality,
          c.minValue ? c.minValue.value : null, c.maxValue ? c.maxValue.value : null,
          c.sorted, c.hasDictionary, c.hasNulls,
          c.indexes.map(i => `${i.kind} (${formatBytes(i.sizeBytes)})`).join(", "),
          formatBytes(c.indexes.reduce((n, i) => n + i.sizeBytes, 0)),
        ]), { id: "segment-columns" })),
    meta.starTrees && meta.starTrees.length > 0 && el("section", { class: "card" }, el("h3", {}, "Star-Trees"),
      el("pre", { class: "json", id: "segment-star-trees" }, JSON.stringify(meta.starTrees, null, 2))));
}

// ---------------------------------------------------------------- logs

// ---------------------------------------------------------------- minion task manager

const TASK_TYPES = ["MergeRollupTask", "RealtimeToOfflineSegmentsTask", "PurgeTask"];

/** Task types with their tasks and states; "Schedule Now" runs the generators of a type. */
async function taskManager(page) {
  const withTasks = await api("GET", "tasks/tasktypes");
  const sections = await Promise.all(TASK_TYPES.map(async (t) => {
    const states = withTasks.includes(t) ? await api("GET", `tasks/${t}/taskstates`) : {};
    const names = Object.keys(states).reverse();
    const schedule = el("button", {
      id: `schedule-${t}`,
      onclick: async () => {
        const made = await api("POST", `tasks/schedule?taskType=${t}`);
        toast(made[t] ? `Scheduled ${made[t]}` : `No ${t} to schedule${made.generationErrors ? ": " + made.generationErrors : ""}`);
        await route();
      },
    }, "Schedule Now");
    return el("section", { class: "card" },
      el("h3", {}, t, " ", el("span", { class: "muted" }, `${names.length} task(s)`)),
      el("div", { class: "toolbar" }, schedule),
      grid(["Task", "Status"], names.map(n => [
        el("a", { href: `#/minion-task-manager/task/${enc(n)}` }, n), states[n],
      ]), { id: `tasks-${t}` }));
  }));
  page(el("h2", {}, "Minion Task Manager"), sections);
}

/** One task: its subtasks (state, minion, tries, what it made or why it failed) and configs. */
async function taskPage(page, name) {
  const task = await api("GET", `tasks/task/${enc(name)}/debug`);
  const configs = await api("GET", `tasks/task/${enc(name)}/config`);
  page(el("h2", {}, name),
    el("p", {}, `${task.taskType} on ${task.table}, ${task.triggeredBy}`),
    el("section", { class: "card" }, el("h3", {}, "Subtasks"),
      grid(["Subtask", "Status", "Minion", "Attempts", "Info"], task.subtasks.map(s => [
        s.id, s.state, s.minion || "", s.attempts, s.info || "",
      ]), { id: "subtasks" })),
    el("section", { class: "card" }, el("h3", {}, "Configs"),
      el("pre", { id: "task-configs" }, JSON.stringify(configs, null, 2))));
}

const LEVELS = ["OFF", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"];

async function logs(page) {
  const { instances } = await api("GET", "instances");
  const instance = el("select", { id: "logger-instance", "aria-label": "Instance" },
    instances.map(i => el("option", { value: i }, i)));
  const loggersBox = el("div", { id: "loggers" });
  const drawLoggers = async () => {
    const base = `loggers/instances/${enc(instance.value)}/loggers`;
    const names = await api("GET", base);
    const records = await Promise.all(names.map(n => api("GET", `${base}/${enc(n)}`)));
    loggersBox.replaceChildren(grid(["Logger", "Level"], records.map(r => [r.name, level(base, r)]), { id: "loggers-grid" }));
  };
  instance.onchange = () => drawLoggers().catch(e => toast(e.message));
  const files = await api("GET", "loggers/instances").catch(() => ({}));
  const tail = el("pre", { class: "json hidden", id: "log-tail", "aria-live": "polite" });
  const level = (base, r) => {
    const select = el("select", { "data-logger": r.name, "aria-label": `Level of ${r.name}` },
      LEVELS.map(l => el("option", { value: l, selected: l === String(r.level).toUpperCase() }, l)));
    select.onchange = async () => {
      try {
        const updated = await api("PUT", `${base}/${enc(r.name)}?level=${select.value}`);
        toast(`${updated.name}: ${updated.level}`);
      } catch (e) { toast(e.message); }
    };
    return select;
  };
  const fileRows = [];
  for (const [instance, list] of Object.entries(files)) {
    for (const f of list) {
      const path = `loggers/instances/${enc(instance)}/download?filePath=${enc(f)}`;
      fileRows.push([instance, f, el("span", {},
        el("button", { class: "view-tail", "data-file": f, onclick: async () => {
          try {
            const headers = {};
            const auth = sessionStorage.getItem(AUTH_KEY);
            if (auth) headers.Authorization = auth;
            const res = await fetch(path, { headers });
            if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
            const lines = (await res.text()).split("\n");
            tail.textContent = lines.slice(-200).join("\n");
            tail.classList.remove("hidden");
            tail.scrollTop = tail.scrollHeight;
          } catch (e) { toast(e.message); }
        } }, "View tail"), " ",
        el("button", { class: "download-log", onclick: () => download(path, f.split("/").pop()).catch(e => toast(e.message)) }, "Download"))]);
    }
  }
  page(
    el("h2", {}, "Logs"),
    el("section", { class: "card" }, el("h3", {}, "Loggers"),
      el("label", {}, "Instance ", instance), loggersBox),
    el("section", { class: "card" }, el("h3", {}, "Log Files"),
      grid(["Instance", "File", ""], fileRows, { id: "log-files" }), tail));
  await drawLoggers();
}

// ---------------------------------------------------------------- query console

const KEYWORDS = new Set(("select from where group by order having limit offset as and or not in is null like between " +
  "case when then else end join inner left right full outer cross on using union intersect except all distinct " +
  "with over partition rows range preceding following current row set explain plan for asc desc true false " +
  "cast interval exists any some lateral values nulls first last filter within").split(" "));

/** The SQL as highlighted HTML-safe spans (keywords, strings, numbers, comments, quoted names). */
function highlight(sql) {
  const out = [];
  const re = /(--[^\n]*)|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b)|([A-Za-z_][A-Za-z0-9_$.]*)|([\s\S])/g;
  let m;
  while ((m = re.exec(sql)) !== null) {
    const [text, com, str, id, num, word] = m;
    const cls = com ? "tok-com" : str ? "tok-str" : id ? "tok-id" : num ? "tok-num"
      : (word && KEYWORDS.has(word.toLowerCase())) ? "tok-kw" : null;
    const span = cls ? el("span", { class: cls }, text) : document.createTextNode(text);
    out.push(span);
  }
  out.push(document.createTextNode("\n"));
  return out;
}

const HISTORY_KEY = "tessera.console.history";

function pastQueries() {
  try { return JSON.parse(localStorage.getItem(HISTORY_KEY)) || []; } catch (_) { return []; }
}

function remember(sql) {
  const h = pastQueries().filter(q => q !== sql);
  h.unshift(sql);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(h.slice(0, 50)));
}

const STATS = ["timeUsedMs", "numDocsScanned", "totalDocs", "numServersQueried", "numServersResponded",
  "numSegmentsQueried", "numSegmentsProcessed", "numSegmentsMatched", "numConsumingSegmentsQueried",
  "numEntriesScannedInFilter", "numEntriesScannedPostFilter", "numGroupsLimitReached", "partialResult"];

async function queryConsole(page, search) {
  const params = new URLSearchParams((search || "").replace(/^\?/, ""));
  const textarea = el("textarea", { id: "sql", spellcheck: "false", "aria-label": "SQL" });
  const shade = el("pre", { "aria-hidden": "true" });
  const sync = () => { shade.replaceChildren(...highlight(textarea.value)); shade.scrollTop = textarea.scrollTop; };
  textarea.addEventListener("input", sync);
  textarea.addEventListener("scroll", () => { shade.scrollTop = textarea.scrollTop; });
  textarea.value = params.get("query") || pastQueries()[0] || "";
  const tracing = el("input", { type: "checkbox", id: "tracing" });
  const multistage = el("input", { type: "checkbox", id: "use-multistage" });
  multistage.checked = localStorage.getItem("tessera.console.multistage") === "true";
  multistage.onchange = () => localStorage.setItem("tessera.console.multistage", String(multistage.checked));
  const timeout = el("input", { type: "number", id: "timeout", min: "1", placeholder: "Timeout (Milliseconds)", style: "width: 170px" });
  const results = el("div", { id: "results" });
  const historyBox = el("div", { class: "history", id: "history" });
  const insert = (text) => {
    const { selectionStart: s, selectionEnd: e, value } = textarea;
    textarea.value = value.slice(0, s) + text + value.slice(e);
    textarea.selectionStart = textarea.selectionEnd = s + text.length;
    textarea.focus();
    sync();
  };
  const drawHistory = () => historyBox.replaceChildren(...pastQueries().map(q => el("div", {
    title: q, onclick: () => { textarea.value = q; sync(); },
  }, q)));
  const run = async () => {
    const sql = textarea.value.trim();
    if (!sql) return;
    remember(sql);
    drawHistory();
    window.history.replaceState(null, "", `#/query?query=${enc(sql)}`);
    const options = [];
    if (timeout.value) options.push(`timeoutMs=${timeout.value}`);
    if (multistage.checked) options.push("useMultistageEngine=true");
    const body = { sql, trace: tracing.checked };
    if (options.length) body.queryOptions = options.join(";");
    results.replaceChildren(el("p", { class: "muted" }, "Running…"));
    try {
      showResults(results, await api("POST", "sql", body), sql);
    } catch (e) {
      results.replaceChildren(el("p", { class: "error", id: "query-error" }, e.message));
    }
  };
  textarea.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") { ev.preventDefault(); run(); }
  });
  const browser = el("div", { class: "browser", id: "table-browser" }, el("p", { class: "muted" }, "Tables"));
  page(
    el("h2", {}, "Query Console"),
    el("div", { class: "query-layout" },
      browser,
      el("div", {},
        el("div", { class: "editor" }, shade, textarea),
        el("div", { class: "toolbar" },
          el("button", { class: "primary", id: "run-query", onclick: run, title: "Ctrl/Cmd+Enter" }, "Run Query"),
          el("label", {}, tracing, " Tracing"),
          el("label", {}, multistage, " Use Multi-Stage Engine"),
          timeout),
        results,
        el("h3", {}, "History"), historyBox)));
  sync();
  drawHistory();
  const { tables: names } = await api("GET", "tables");
  const nodes = [];
  for (const t of names) {
    const cols = el("div", { class: "hidden" });
    nodes.push(el("div", { class: "tbl", "data-table": t, ondblclick: () => insert(t), onclick: async () => {
      if (!cols.childElementCount) {
        const schema = await api("GET", `tables/${enc(t)}/schema`).catch(() => null);
        const fields = schema ? [...(schema.dimensionFieldSpecs || []), ...(schema.metricFieldSpecs || []),
          ...(schema.dateTimeFieldSpecs || []), ...(schema.timeFieldSpec ? [schema.timeFieldSpec.incomingGranularitySpec] : [])] : [];
        cols.replaceChildren(...fields.map(f => el("div", { class: "col", "data-column": f.name, onclick: () => insert(f.name) }, `${f.name} (${f.dataType})`)));
      }
      cols.classList.toggle("hidden");
    } }, t), cols);
  }
  browser.replaceChildren(el("p", { class: "muted" }, "Tables (click for columns, double-click to insert)"), ...nodes);
}

/** The answer of a query: exceptions, the result grid with copy/download, stats, plans as trees. */
function showResults(target, answer, sql) {
  const parts = [];
  for (const ex of answer.exceptions || []) {
    parts.push(el("p", { class: "error query-exception" }, `Error ${ex.errorCode}: ${ex.message}`));
  }
  const table = answer.resultTable;
  if (table) {
    const columns = table.dataSchema.columnNames;
    const rows = table.rows;
    const explain = /^\s*explain\b/i.test(sql);
    if (explain && columns.includes("Operator") && columns.includes("Operator_Id") && columns.includes("Parent_Id")) {
      parts.push(planTree(columns, rows));
    }
    const csv = () => [columns, ...rows].map(r => r.map(v => {
      const s = v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
      return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    }).join(",")).join("\n");
    const json = () => JSON.stringify(rows.map(r => Object.fromEntries(columns.map((c, i) => [c, r[i]]))), null, 2);
    const copy = async (text, what) => {
      try { await navigator.clipboard.writeText(text); toast(`Copied ${rows.length} rows as ${what}`); } catch (_) { toast("The browser refused the clipboard"); }
    };
    const download = () => {
      const a = el("a", { href: URL.createObjectURL(new Blob([csv()], { type: "text/csv" })), download: "results.csv" });
      document.body.append(a);
      a.click();
      a.remove();
    };
    parts.push(el("div", { class: "toolbar" },
      el("span", { class: "muted", id: "row-count" }, `${rows.length} row(s)`),
      el("button", { id: "copy-csv", onclick: () => copy(csv(), "CSV") }, "Copy CSV"),
      el("button", { id: "copy-json", onclick: () => copy(json(), "JSON") }, "Copy JSON"),
      el("button", { id: "download-csv", onclick: download }, "Download CSV")));
    parts.push(grid(columns.map((c, i) => `${c} (${table.dataSchema.columnDataTypes[i]})`), rows, { id: "result-grid" }));
  }
  const stats = STATS.filter(k => answer[k] !== undefined);
  if (stats.length) {
    parts.push(el("h3", {}, "Query Stats"), el("dl", { class: "stats", id: "stats" },
      stats.map(k => el("div", { "data-stat": k }, el("dt", {}, k), el("dd", {}, String(answer[k]))))));
  }
  if (answer.traceInfo && Object.keys(answer.traceInfo).length) {
    parts.push(el("h3", {}, "Trace"), el("pre", { class: "json" }, JSON.stringify(answer.traceInfo, null, 2)));
  }
  target.replaceChildren(...parts);
}

/** An EXPLAIN PLAN answer (Operator, Operator_Id, Parent_Id) drawn as an indented tree. */
function planTree(columns, rows) {
  const op = columns.indexOf("Operator"), id = columns.indexOf("Operator_Id"), parent = columns.indexOf("Parent_Id");
  const children = new Map();
  for (const r of rows) {
    const p = r[parent];
    if (!children.has(p)) children.set(p, []);
    children.get(p).push(r);
  }
  const lines = [];
  const walk = (p, depth) => {
    for (const r of children.get(p) || []) {
      lines.push(`${"  ".repeat(depth)}${depth ? "└ " : ""}${r[op]}`);
      walk(r[id], depth + 1);
    }
  };
  walk(-1, 0);
  return el("div", { class: "tree card", id: "plan-tree" }, lines.join("\n"));
}

// ---------------------------------------------------------------- start

async function start() {
  try {
    const info = await fetch("auth/info").then(r => r.json());
    if (info.workflow === "BASIC" && !sessionStorage.getItem(AUTH_KEY)) location.hash = "#/login";
  } catch (_) { /* no access control */ }
  showUser();
  window.addEventListener("hashchange", route);
  await route();
}

start();
