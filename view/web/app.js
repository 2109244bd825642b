// membench view: the page. It asks the server (or, in a static export,
// the data in the page; see local below) only for what the current view
// shows, and draws it on canvases.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let u = 0, x = n;
  while (Math.abs(x) >= 1024 && u < units.length - 1) { x /= 1024; u++; }
  return (u === 0 ? String(n) : x.toFixed(2)) + " " + units[u] + (u ? " (" + n.toLocaleString("en-US") + " B)" : "");
}
const num = (n) => Number(n).toLocaleString("en-US");

// ---- data source: the server, or the data a static export carries ----

const STATIC = window.MEMBENCH_STATIC || null;

async function api(path, params = {}, method = "GET") {
  if (STATIC) return local(path, params);
  const q = new URLSearchParams(params).toString();
  const r = await fetch("api/" + path + (q ? "?" + q : ""), { method });
  if (!r.ok) throw new Error(path + ": " + (await r.text()).trim());
  return r.json();
}

// liveSegs is view.liveSegments: segment sizes held after event e.
function liveSegs(start, evs, e) {
  if (!evs.length) return [];
  const held = [...start];
  for (const ev of evs) {
    if (ev.event > e) break;
    if (ev.free) { const k = held.indexOf(ev.size); if (k >= 0) held.splice(k, 1); } else held.push(ev.size);
  }
  return held.sort((a, b) => b - a);
}

// local answers the API from a static export's data: every buffer and
// block is in the page, so it draws them all.
function local(path, p) {
  const w = STATIC.entries[+p.w];
  const binsOf = (v, lo, hi, n) => {
    lo = Math.max(lo, 0); hi = Math.min(hi, v.length);
    const out = [];
    if (lo >= hi) return out;
    const step = Math.ceil((hi - lo) / n);
    for (let a = lo; a < hi; a += step) {
      const b = Math.min(a + step, hi);
      let mn = v[a], mx = v[a];
      for (let i = a + 1; i < b; i++) { mn = Math.min(mn, v[i]); mx = Math.max(mx, v[i]); }
      out.push({ lo: a, hi: b, min: mn, max: mx });
    }
    return out;
  };
  switch (path) {
    case "index": return STATIC.index;
    case "plan": {
      const pl = w.plans[+p.id];
      const rects = [];
      for (const r of pl.rects) {
        if (r.f < +p.t1 && r.l + 1 > +p.t0 && r.o < +p.a1 && r.o + r.s > +p.a0) rects.push(r);
      }
      return { rects, cols: 0, rows: 0, cells: [], hidden: 0 };
    }
    case "profile": return binsOf(w.plans[+p.id].profile, +p.t0, +p.t1, +p.pw);
    case "series": {
      const r = w.replays[+p.id];
      const e0 = +p.e0, e1 = +p.e1, n = +p.pw;
      return {
        in_use: binsOf(r.in_use, e0, e1, n), allocated: binsOf(r.allocated, e0, e1, n), reserved: binsOf(r.reserved, e0, e1, n),
        recorded: r.recorded ? binsOf(r.recorded, e0, e1, n) : undefined, ooms: r.ooms.filter((o) => o >= e0 && o < e1),
      };
    }
    case "stack": {
      const k = w.stack_of && +p.id < w.stack_of.length ? w.stack_of[+p.id] : -1;
      return { stack: k >= 0 ? w.stacks[k] : "" };
    }
    case "state": {
      const r = w.replays[+p.id];
      const e = Math.min(Math.max(+p.e, 0), r.in_use.length - 1);
      const blocks = r.blocks.filter((b) => b.f <= e && e < b.t);
      const s = { event: e, blocks, hidden: 0, in_use: r.in_use[e], allocated: r.allocated[e], reserved: r.reserved[e], recorded: r.recorded ? r.recorded[e] : -1 };
      s.rounding = s.allocated - s.in_use; s.cached = s.reserved - s.allocated;
      s.segments = liveSegs(r.seg_start || [], r.segments || [], e); s.recorded_segments = liveSegs(r.rec_seg_start || [], r.recorded_segments || [], e);
      s.top = blocks.reduce((m, b) => Math.max(m, b.o + b.c), 0);
      return s;
    }
  }
  throw new Error("a static page cannot " + path);
}

// ---- tooltip ----

function tip(ev, text) {
  const t = $("#tip");
  if (!text) { t.hidden = true; return; }
  t.textContent = text;
  t.hidden = false;
  t.style.left = ev.clientX + 14 + "px";
  t.style.top = ev.clientY + 14 + "px";
}

function status(msg) { $("#status").textContent = msg; }

// fitCanvas sizes a canvas's bitmap to its box and returns its context.
function fitCanvas(c) {
  const r = c.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  c.width = Math.max(1, Math.round(r.width * dpr));
  c.height = Math.max(1, Math.round(r.height * dpr));
  const g = c.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { g, w: r.width, h: r.height };
}

const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

// ---- view state ----

let index = null;
let cur = 0; // workload index
let tab = "plans";
let seq = 0; // drops stale answers

async function main() {
  try {
    index = await api("index");
  } catch (e) {
    status(String(e));
    return;
  }
  const params = new URLSearchParams(location.search);
  cur = Math.min(+(params.get("w") || 0), Math.max(index.workloads.length - 1, 0));
  tab = params.get("tab") || (index.workloads.length ? (index.workloads[cur].plans.length ? "plans" : "replays") : "sweep");
  render();
}

function setTab(t) {
  tab = t;
  render();
}

function render() {
  const sel = $("#workload");
  sel.replaceChildren(...index.workloads.map((w, i) => el("option", { value: i }, w.spec)));
  sel.value = cur;
  sel.hidden = index.workloads.length === 0;
  sel.onchange = () => { cur = +sel.value; render(); };
  const tabs = [];
  const w = index.workloads[cur];
  if (w && w.plans.length) tabs.push(["plans", "Plans"]);
  if (w && w.replays.length) tabs.push(["replays", w.snapshot ? "Snapshot" : "Replays"]);
  if (index.sweep) tabs.push(["sweep", "Sweep"]);
  if (!tabs.some(([t]) => t === tab) && tabs.length) tab = tabs[0][0];
  $("#tabs").replaceChildren(...tabs.map(([t, name]) => el("button", { class: t === tab ? "on" : "", id: "tab-" + t, onclick: () => setTab(t) }, name)));
  const m = $("#main");
  m.replaceChildren();
  if (tab === "plans" && w) planView(m, w);
  else if (tab === "replays" && w) replayView(m, w);
  else if (tab === "sweep") sweepView(m);
}

// ---- plan view ----

function planView(m, w) {
  const plans = w.plans;
  const top = Math.max(...plans.map((p) => p.top), 1);
  const tasks = Math.max(...plans.map((p) => p.tasks), 1);
  const vp = { t0: 0, t1: tasks, a0: 0, a1: top };
  const facts = plans.map((p) =>
    `${p.name}: footprint ${bytes(p.footprint)}, LB_load ${bytes(p.lb_load)}, ratio ${(p.footprint / Math.max(p.lb_load, 1)).toFixed(4)}` +
    (p.bound ? `, bound ${bytes(p.bound)}${p.optimal ? " (optimal)" : ""}` : "") + `, peak at task ${p.peak_task}` +
    (plans.length === 2 ? `, ${num(p.moved)} buffers placed differently` : "") +
    (p.spaces ? "\n  memory spaces, stacked bottom up: " + p.spaces.map((s) => `${s.name} ${bytes(s.footprint)}`).join(", ") : "")).join("\n");
  m.append(el("div", { class: "facts", id: "plan-facts" }, `${w.spec}: ${num(w.buffers)} buffers\n` + facts));
  m.append(el("div", { class: "legend" },
    el("span", {}, el("i", { style: "background:#4e79a7" }), "buffer"),
    el("span", {}, el("i", { style: "border:2px solid #000;box-sizing:border-box" }), "live at the peak task"),
    el("span", {}, el("i", { style: "border:2px solid #d0f;box-sizing:border-box" }), "placed differently by the other plan"),
    el("span", {}, el("i", { style: "background:#888" }), "buffers too small to draw (summed)"),
    el("button", { id: "reset", onclick: () => { Object.assign(vp, { t0: 0, t1: tasks, a0: 0, a1: top }); redraw(); } }, "reset zoom")));
  const row = el("div", { class: "row" });
  m.append(row);
  const panels = plans.map((p, id) => {
    const c = el("canvas", { class: "layout", id: "layout-" + id });
    const pc = el("canvas", { class: "profile", id: "profile-" + id });
    row.append(el("div", { class: "panel" }, el("h3", {}, p.name), c, pc));
    return { p, id, c, pc, tiles: null };
  });
  let pending = 0;
  async function redraw() {
    const my = ++seq;
    pending++;
    status("loading…");
    try {
      await Promise.all(panels.map(async (pn) => {
        const box = pn.c.getBoundingClientRect();
        const args = { w: cur, id: pn.id, t0: Math.floor(vp.t0), t1: Math.ceil(vp.t1), a0: Math.floor(vp.a0), a1: Math.ceil(vp.a1), pw: Math.round(box.width), ph: Math.round(box.height) };
        const [tiles, prof] = await Promise.all([api("plan", args), api("profile", { w: cur, id: pn.id, t0: args.t0, t1: args.t1, pw: args.pw })]);
        if (my !== seq) return;
        pn.tiles = tiles;
        drawLayout(pn, vp);
        drawProfile(pn, vp, prof);
      }));
      if (my === seq) status(`tasks ${num(Math.floor(vp.t0))}–${num(Math.ceil(vp.t1))}, addresses ${num(Math.floor(vp.a0))}–${num(Math.ceil(vp.a1))}`);
    } catch (e) {
      status(String(e));
      console.error(e);
    } finally {
      pending--;
      document.body.dataset.pending = pending;
    }
  }
  for (const pn of panels) {
    interact(pn.c, vp, { tMax: tasks, aMax: top }, redraw, (ev, t, a) => {
      const r = hit(pn.tiles, t, a);
      tip(ev, r ? `buffer ${r.i}${r.n ? " (" + r.n + ")" : ""}\nsize ${bytes(r.s)}\nlifetime tasks ${r.f}–${r.l}\noffset ${num(r.o)}` +
        (r.p ? "\nlive at the peak task" : "") + (r.m ? "\nplaced differently by the other plan" : "") : "");
    });
  }
  window.onresize = redraw;
  redraw();
}

function hit(tiles, t, a) {
  if (!tiles) return null;
  let best = null;
  for (const r of tiles.rects) {
    if (r.f <= t && t < r.l + 1 && r.o <= a && a < r.o + r.s && (!best || r.s < best.s)) best = r;
  }
  return best;
}

// interact makes a canvas zoom (wheel, around the cursor) and pan (drag)
// the viewport vp, and report the data point under the mouse.
function interact(c, vp, lim, redraw, hover) {
  let drag = null;
  const toData = (ev) => {
    const r = c.getBoundingClientRect();
    const x = (ev.clientX - r.left) / r.width, y = 1 - (ev.clientY - r.top) / r.height;
    return [vp.t0 + x * (vp.t1 - vp.t0), vp.a0 + y * (vp.a1 - vp.a0), x, y];
  };
  c.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [t, a] = toData(ev);
    const f = ev.deltaY < 0 ? 0.8 : 1.25;
    const zt = !ev.altKey, za = !ev.shiftKey;
    if (zt) { vp.t0 = t - (t - vp.t0) * f; vp.t1 = t + (vp.t1 - t) * f; }
    if (za) { vp.a0 = a - (a - vp.a0) * f; vp.a1 = a + (vp.a1 - a) * f; }
    clamp(vp, lim);
    redraw();
  }, { passive: false });
  c.addEventListener("mousedown", (ev) => { drag = { x: ev.clientX, y: ev.clientY, vp: { ...vp } }; });
  window.addEventListener("mouseup", () => { drag = null; });
  c.addEventListener("mousemove", (ev) => {
    if (drag) {
      const r = c.getBoundingClientRect();
      const dt = (ev.clientX - drag.x) / r.width * (drag.vp.t1 - drag.vp.t0);
      const da = (ev.clientY - drag.y) / r.height * (drag.vp.a1 - drag.vp.a0);
      Object.assign(vp, { t0: drag.vp.t0 - dt, t1: drag.vp.t1 - dt, a0: drag.vp.a0 + da, a1: drag.vp.a1 + da });
      clamp(vp, lim);
      redraw();
      return;
    }
    const [t, a] = toData(ev);
    hover(ev, t, a);
  });
  c.addEventListener("mouseleave", () => tip(null, ""));
}

function clamp(vp, lim) {
  const span = (lo, hi, max) => {
    let w = Math.min(Math.max(hi - lo, 1), max);
    lo = Math.min(Math.max(lo, 0), max - w);
    return [lo, lo + w];
  };
  [vp.t0, vp.t1] = span(vp.t0, vp.t1, lim.tMax);
  [vp.a0, vp.a1] = span(vp.a0, vp.a1, lim.aMax);
}

function drawLayout(pn, vp) {
  const { g, w, h } = fitCanvas(pn.c);
  const tiles = pn.tiles;
  const sx = w / (vp.t1 - vp.t0), sy = h / (vp.a1 - vp.a0);
  // Summed cells first, shaded by how full they are.
  if (tiles.cols) {
    const cw = w / tiles.cols, ch = h / tiles.rows;
    const cellT = (vp.t1 - vp.t0) / tiles.cols, cellA = (vp.a1 - vp.a0) / tiles.rows;
    for (let r = 0; r < tiles.rows; r++) {
      for (let k = 0; k < tiles.cols; k++) {
        const v = tiles.cells[r * tiles.cols + k];
        if (!v) continue;
        g.fillStyle = `rgba(120,120,120,${Math.min(1, 0.25 + 0.75 * v / (cellT * cellA))})`;
        g.fillRect(k * cw, h - (r + 1) * ch, cw, ch);
      }
    }
  }
  for (const r of tiles.rects) {
    const x = (r.f - vp.t0) * sx, x2 = (r.l + 1 - vp.t0) * sx;
    const y = h - (r.o + r.s - vp.a0) * sy, y2 = h - (r.o - vp.a0) * sy;
    g.fillStyle = COLORS[r.i % COLORS.length];
    g.fillRect(x, y, x2 - x, y2 - y);
    if (x2 - x > 3 && y2 - y > 3) {
      g.strokeStyle = r.m ? "#d0f" : r.p ? "#000" : "rgba(255,255,255,0.7)";
      g.lineWidth = r.m || r.p ? 2 : 1;
      g.strokeRect(x + 0.5, y + 0.5, x2 - x - 1, y2 - y - 1);
    }
  }
  // Memory spaces, stacked: a line where each starts.
  for (const s of pn.p.spaces || []) {
    if (!s.base) continue;
    const y = h - (s.base - vp.a0) * sy;
    g.strokeStyle = "#333"; g.setLineDash([2, 2]); g.beginPath(); g.moveTo(0, y); g.lineTo(w, y); g.stroke(); g.setLineDash([]);
    g.fillStyle = "#333"; g.fillText("space " + s.name, 4, y - 3);
  }
  // The peak task.
  const px = (pn.p.peak_task + 0.5 - vp.t0) * sx;
  g.strokeStyle = "#c00";
  g.setLineDash([4, 3]);
  g.beginPath(); g.moveTo(px, 0); g.lineTo(px, h); g.stroke();
  g.setLineDash([]);
}

function drawProfile(pn, vp, bins) {
  const { g, w, h } = fitCanvas(pn.pc);
  const top = Math.max(pn.p.top, pn.p.lb_load, 1);
  const sx = w / (vp.t1 - vp.t0), sy = (h - 4) / top;
  g.fillStyle = "#9ecae1";
  for (const b of bins) {
    const x = (b.lo - vp.t0) * sx, x2 = (b.hi - vp.t0) * sx;
    g.fillRect(x, h - b.max * sy, Math.max(x2 - x, 1), b.max * sy);
  }
  const line = (v, color, label) => { // a bound across the chart
    const y = h - v * sy;
    g.strokeStyle = color; g.beginPath(); g.moveTo(0, y); g.lineTo(w, y); g.stroke();
    g.fillStyle = color; g.fillText(label, 4, Math.max(y - 2, 10));
  };
  line(pn.p.lb_load, "#08519c", "LB_load " + bytes(pn.p.lb_load));
  const y = h - pn.p.top * sy;
  g.strokeStyle = "#c00"; g.setLineDash([4, 3]); g.beginPath(); g.moveTo(0, y); g.lineTo(w, y); g.stroke(); g.setLineDash([]);
  g.fillStyle = "#c00"; g.textAlign = "right"; g.fillText("footprint " + bytes(pn.p.footprint), w - 4, Math.max(y - 2, 10)); g.textAlign = "left";
}

// ---- replay and snapshot view ----

function replayView(m, w) {
  const reps = w.replays;
  const events = Math.max(w.events, 1);
  const top = Math.max(...reps.map((r) => Math.max(r.peak_reserved, r.recorded_peak || 0)), 1);
  const vp = { t0: 0, t1: events, a0: 0, a1: top * 1.05 };
  let cursor = 0;
  m.append(el("div", { class: "facts", id: "replay-facts" }, `${w.spec}: ${num(w.events)} events` + (w.settings ? `, recorded under ${w.settings}` : "") + "\n" +
    reps.map((r) => `${r.name}: peak reserved ${bytes(r.peak_reserved)}, peak allocated ${bytes(r.peak_allocated)}, peak in use ${bytes(r.peak_in_use)}, OOMs ${r.ooms}` +
      (r.recorded_peak ? `; recorded peak reserved ${bytes(r.recorded_peak)}` : "")).join("\n")));
  if (w.snapshot || reps.length) {
    const inp = el("input", { id: "settings", size: 50, placeholder: "expandable_segments:True,max_split_size_mb:128", value: w.settings || "" });
    const btn = el("button", { id: "replay-with", onclick: async () => {
      try {
        status("replaying…");
        await api("replay", { w: cur, allocator: "torch-caching?alloc_conf=" + inp.value }, "POST");
        index = await api("index");
        render();
      } catch (e) { status(String(e)); }
    } }, "replay under these settings");
    if (!STATIC) m.append(el("div", {}, "torch-caching with PYTORCH_CUDA_ALLOC_CONF ", inp, " ", btn));
  }
  const legend = el("div", { class: "legend" });
  reps.forEach((r, k) => legend.append(el("span", {}, el("i", { style: "background:" + COLORS[k % COLORS.length] }), r.name + ": reserved (line), allocated and in use (shaded)")));
  if (reps.some(() => w.snapshot)) legend.append(el("span", {}, el("i", { style: "background:#000" }), "recorded reserved"));
  legend.append(el("span", {}, el("i", { style: "background:#c00" }), "OOM"));
  legend.append(el("button", { id: "reset", onclick: () => { Object.assign(vp, { t0: 0, t1: events, a0: 0, a1: top * 1.05 }); redraw(); } }, "reset zoom"));
  m.append(legend);
  const c = el("canvas", { class: "series", id: "series" });
  m.append(c);
  const states = reps.map((r, id) => {
    const sc = el("canvas", { class: "state", id: "state-" + id });
    const facts = el("div", { class: "facts", id: "state-facts-" + id });
    m.append(el("div", { class: "panel" }, el("h3", {}, `${r.name} at the cursor`), sc, facts));
    return { r, id, sc, facts, st: null };
  });
  let data = [];
  async function redraw() {
    const my = ++seq;
    document.body.dataset.pending = 1;
    try {
      const pw = Math.round(c.getBoundingClientRect().width);
      const got = await Promise.all(reps.map((r, id) => api("series", { w: cur, id, e0: Math.floor(vp.t0), e1: Math.ceil(vp.t1), pw })));
      if (my !== seq) return;
      data = got;
      drawSeries();
      status(`events ${num(Math.floor(vp.t0))}–${num(Math.ceil(vp.t1))}`);
    } catch (e) { status(String(e)); console.error(e); }
    finally { document.body.dataset.pending = 0; }
  }
  function drawSeries() {
    const { g, w: cw, h } = fitCanvas(c);
    const sx = cw / (vp.t1 - vp.t0), sy = h / (vp.a1 - vp.a0);
    const Y = (v) => h - (v - vp.a0) * sy;
    data.forEach((d, k) => {
      const col = COLORS[k % COLORS.length];
      // Allocated and in-use bytes as areas under their bin maximums.
      const band = (bins, alpha) => {
        g.globalAlpha = alpha; g.fillStyle = col;
        for (const b of bins) { const x = (b.lo - vp.t0) * sx; g.fillRect(x, Y(b.max), Math.max((b.hi - b.lo) * sx, 1), Math.max(Y(Math.max(vp.a0, 0)) - Y(b.max), 0)); }
        g.globalAlpha = 1;
      };
      band(d.allocated, 0.25);
      band(d.in_use, 0.45);
      const curve = (bins, color, dash) => {
        g.strokeStyle = color; g.setLineDash(dash); g.beginPath();
        bins.forEach((b, i) => { const x = (b.lo - vp.t0) * sx; if (i) g.lineTo(x, Y(b.max)); else g.moveTo(x, Y(b.max)); g.lineTo((b.hi - vp.t0) * sx, Y(b.max)); });
        g.stroke(); g.setLineDash([]);
      };
      curve(d.reserved, col, []);
      if (d.recorded && k === 0) curve(d.recorded, "#000", [5, 3]);
      g.fillStyle = "#c00";
      for (const o of d.ooms) { const x = (o - vp.t0) * sx; g.beginPath(); g.moveTo(x, 0); g.lineTo(x - 5, 9); g.lineTo(x + 5, 9); g.fill(); }
    });
    const x = (cursor + 0.5 - vp.t0) * sx;
    g.strokeStyle = "#444"; g.beginPath(); g.moveTo(x, 0); g.lineTo(x, h); g.stroke();
  }
  let stateSeq = 0;
  async function showState() {
    const my = ++stateSeq;
    const got = await Promise.all(states.map((s) => api("state", { w: cur, id: s.id, e: cursor })));
    if (my !== stateSeq) return; // a later cursor's answer wins
    states.forEach((s, k) => { s.st = got[k]; drawState(s); });
    c.dataset.cursor = cursor;
  }
  function drawState(s) {
    const st = s.st;
    const { g, w: cw, h } = fitCanvas(s.sc);
    const lo = st.blocks.reduce((m, b) => Math.min(m, b.o), Infinity);
    const base = isFinite(lo) ? lo : 0;
    const span = Math.max(st.top - base, st.reserved, 1);
    s.scale = { base, span, cw };
    g.fillStyle = "#eee"; g.fillRect(0, 0, cw, h);
    for (const b of st.blocks) {
      const x = (b.o - base) / span * cw;
      g.fillStyle = "#4e79a7"; g.fillRect(x, 8, Math.max(b.s / span * cw, 1), h - 16);
      if (b.c > b.s) { g.fillStyle = "#f28e2b"; g.fillRect(x + b.s / span * cw, 8, Math.max((b.c - b.s) / span * cw, 0.5), h - 16); }
    }
    const segs = (name, list) => list && list.length ? `\n${name} segments: ${num(list.length)}, ${bytes(list.reduce((a, b) => a + b, 0))}: ` +
      list.slice(0, 12).map((x) => bytes(x).split(" (")[0]).join(", ") + (list.length > 12 ? ", …" : "") : "";
    s.facts.textContent = `event ${num(st.event)}: in use ${bytes(st.in_use)}, rounding ${bytes(st.rounding)}, cached free ${bytes(st.cached)}, reserved ${bytes(st.reserved)}` +
      (st.recorded >= 0 ? `, recorded reserved ${bytes(st.recorded)}` : "") + `; ${num(st.blocks.length + st.hidden)} live blocks` +
      segs("simulated", st.segments) + segs("recorded", st.recorded_segments) +
      "\nblue: requested bytes of a block; orange: its rounding; grey: reserved or unused address space";
  }
  interact(c, vp, { tMax: events, aMax: top * 1.05 }, redraw, (ev, t) => {
    const e = Math.max(0, Math.min(events - 1, Math.floor(t)));
    if (e !== cursor) {
      cursor = e;
      drawSeries();
      showState().catch((err) => { status(String(err)); console.error(err); });
    }
    const d = data[0];
    const bin = d && d.reserved.find((b) => b.lo <= e && e < b.hi);
    tip(ev, bin ? `event ${num(e)}\nreserved ${bytes(bin.max)}` : "");
  });
  for (const s of states) {
    s.sc.addEventListener("mousemove", (ev) => {
      if (!s.st || !s.scale) return;
      const r = s.sc.getBoundingClientRect();
      const addr = s.scale.base + (ev.clientX - r.left) / r.width * s.scale.span;
      const b = s.st.blocks.find((b) => b.o <= addr && addr < b.o + b.c);
      const text = b ? `tensor ${b.id}\nrequested ${bytes(b.s)}\nblock ${bytes(b.c)} at ${num(b.o)}\nlive events ${num(b.f)}–${num(b.t)}` : "";
      tip(ev, text);
      s.hovered = b ? b.id : -1;
      if (b && w.snapshot) {
        stackOf(b.id).then((st) => { if (s.hovered === b.id && st) tip(ev, text + "\n\nallocated at\n" + st); })
          .catch((e) => { status(String(e)); console.error(e); });
      }
    });
    s.sc.addEventListener("mouseleave", () => tip(null, ""));
  }
  window.onresize = redraw;
  redraw().then(showState).catch((e) => { status(String(e)); console.error(e); });
}

const stacks = new Map();
async function stackOf(id) {
  const key = cur + ":" + id;
  if (!stacks.has(key)) stacks.set(key, (await api("stack", { w: cur, id })).stack);
  return stacks.get(key);
}

// ---- sweep view ----

async function sweepView(m) {
  let sw;
  try { sw = await api("sweep"); } catch (e) { status(String(e)); return; }
  const cols = [["workload", "workload"], ["subject", "subject"], ["kind", "kind"], ["n", "n"], ["footprint", "footprint"], ["ratio", "/ LB_load"], ["best_ratio", "/ best known"], ["median_ns", "time"]];
  let key = "workload", dir = 1;
  const table = el("table", { id: "sweep" });
  m.append(el("div", { class: "facts" }, `${sw.dir}: ${num(sw.rows.length)} cells; click a column to sort, a row to open it`), table);
  const fmt = (k, v, row) => {
    if (!row.ok && (k === "footprint" || k === "ratio" || k === "best_ratio")) return "failed";
    if (k === "footprint") return num(v);
    if (k === "ratio" || k === "best_ratio") return v ? v.toFixed(4) : "";
    if (k === "median_ns") return v >= 1e6 ? (v / 1e6).toFixed(2) + " ms" : v >= 1e3 ? (v / 1e3).toFixed(2) + " µs" : v.toFixed(0) + " ns";
    return String(v);
  };
  function draw() {
    const rows = [...sw.rows].sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) * dir);
    table.replaceChildren(
      el("tr", {}, ...cols.map(([k, name]) => el("th", { onclick: () => { dir = key === k ? -dir : 1; key = k; draw(); } }, name + (key === k ? (dir > 0 ? " ▲" : " ▼") : "")))),
      ...rows.map((r) => el("tr", { class: "cell", onclick: () => openCell(r) }, ...cols.map(([k]) => el("td", {}, fmt(k, r[k], r))))));
  }
  draw();
}

async function openCell(r) {
  if (STATIC) return;
  status("opening " + r.workload + " with " + r.subject + "…");
  try {
    const kind = r.kind === "allocator" ? "allocator" : "strategy";
    const got = await api("open", { workload: r.workload, [kind]: r.subject }, "POST");
    index = await api("index");
    cur = got.w;
    tab = kind === "allocator" ? "replays" : "plans";
    render();
  } catch (e) { status(String(e)); }
}

main();
