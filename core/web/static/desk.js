// The desk's page script: live updates (server-sent events), countdowns, decisions, edits.
// No HTML is built from data here: fragments come rendered and escaped by the server, and
// everything this script writes itself goes through textContent.
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";
const FINAL = new Set(["approved", "approved-as-edited", "blocked", "denied", "error",
  "new-approval", "expired"]);
const SAID = {
  "waiting": "still waiting for a decision",
  "decided": "decided; waiting for the agent to pick it up",
  "running": "the agent picked it up; the call is running",
  "approved": "approved: the call ran",
  "approved-as-edited": "approved as edited: the call ran with the edited params",
  "blocked": "blocked by the chain",
  "denied": "denied",
  "error": "approved, but the tool failed",
  "new-approval": "the chain changed the edit again: a new approval is waiting",
  "expired": "expired before anyone decided",
};

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf() },
    body: JSON.stringify(body === undefined ? {} : body),
  });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  return { ok: response.ok, status: response.status, data };
}

function detail(data) {
  if (!data || data.detail === undefined) return "request failed";
  if (typeof data.detail === "string") return data.detail;
  return data.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
}

function say(card, text, kind) {
  const out = card.querySelector("output.result");
  out.textContent = text;
  out.dataset.kind = kind || "";
}

// -- countdowns ---------------------------------------------------------------------------

function countdowns() {
  const now = Date.now() / 1000;
  for (const node of document.querySelectorAll(".countdown[data-expires]")) {
    const left = Math.max(0, Math.floor(Number(node.dataset.expires) - now));
    const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    const two = (n) => String(n).padStart(2, "0");
    node.textContent = left === 0 ? "expired" :
      `expires in ${h ? `${h}h${two(m)}m` : `${m}m${two(s)}s`}`;
  }
}

// -- a small JSON Schema check (the keywords tool schemas use) ----------------------------

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function fits(type, value) {
  const actual = typeOf(value);
  return type === actual || (type === "number" && actual === "integer");
}

function check(schema, value, where, errors) {
  if (!schema || typeof schema !== "object") return errors;
  const at = where || "params";
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => fits(t, value))) {
      errors.push(`${at}: expected ${types.join(" or ")}, got ${typeOf(value)}`);
      return errors;
    }
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${at}: must be one of ${JSON.stringify(schema.enum)}`);
  }
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    errors.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  }
  if (typeof value === "string") {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined) {
      try { if (!new RegExp(schema.pattern, "u").test(value)) errors.push(`${at}: does not match ${schema.pattern}`); } catch (_) { /* a pattern JS cannot read: the core checks it */ }
    }
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${at}: above ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) errors.push(`${at}: must be above ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) errors.push(`${at}: must be below ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items && typeof schema.items === "object") value.forEach((item, i) => check(schema.items, item, `${at}[${i}]`, errors));
  }
  if (typeOf(value) === "object") {
    const props = schema.properties || {};
    for (const name of schema.required || []) {
      if (!(name in value)) errors.push(`${at}.${name}: required`);
    }
    for (const [name, item] of Object.entries(value)) {
      if (name in props) check(props[name], item, `${at}.${name}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}.${name}: not allowed`);
      else if (typeof schema.additionalProperties === "object") check(schema.additionalProperties, item, `${at}.${name}`, errors);
    }
  }
  return errors;
}

// -- decisions ------------------------------------------------------------------------------

async function follow(card, id) {
  const deadline = Date.now() + 10 * 60 * 1000;
  while (Date.now() < deadline) {
    const response = await fetch(`/api/approvals/${encodeURIComponent(id)}/outcome`,
      { credentials: "same-origin" });
    if (response.ok) {
      const outcome = await response.json();
      let text = SAID[outcome.result] || outcome.result;
      if (outcome.reason) text += ` (${outcome.reason})`;
      say(card, text, outcome.result);
      if (FINAL.has(outcome.result)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function decide(card, decision) {
  const body = { decision };
  // A team's vote counts only for the params this card shows.
  if (card.dataset.digest) body.digest = card.dataset.digest;
  const reason = card.querySelector("input.reason")?.value.trim();
  if (reason) body.reason = reason;
  if (decision === "edit") {
    const box = card.querySelector("div.edit");
    const list = card.querySelector("ul.edit-errors");
    list.replaceChildren();
    let params;
    try {
      params = JSON.parse(card.querySelector("textarea.edit-params").value);
    } catch (error) {
      params = undefined;
      const item = document.createElement("li");
      item.textContent = `not JSON: ${error.message}`;
      list.append(item);
      return;
    }
    let schema = {};
    try { schema = JSON.parse(box.dataset.schema || "{}"); } catch (_) { schema = {}; }
    const errors = typeOf(params) === "object" ? check(schema, params, "", []) : ["params: must be a JSON object"];
    if (errors.length) {
      for (const text of errors) {
        const item = document.createElement("li");
        item.textContent = text;
        list.append(item);
      }
      return;
    }
    body.params = params;
  }
  for (const button of card.querySelectorAll("button")) button.disabled = true;
  say(card, "sending…");
  const answer = await post(`/api/approvals/${encodeURIComponent(card.dataset.id)}/decision`, body);
  if (!answer.ok) {
    say(card, `not recorded: ${detail(answer.data)}`, "refused");
    for (const button of card.querySelectorAll("button")) button.disabled = false;
    return;
  }
  card.classList.add("decided");
  card.dataset.decided = decision;
  say(card, `${decision} by ${answer.data.approval.decided_by}: waiting for the agent…`, "decided");
  follow(card, card.dataset.id);
}

async function revoke(button) {
  button.disabled = true;
  const answer = await post(`/api/grants/${encodeURIComponent(button.dataset.revoke)}/revoke`);
  if (answer.ok) button.closest("tr").remove();
  else { button.disabled = false; button.textContent = `Revoke (failed: ${detail(answer.data)})`; }
}

document.addEventListener("click", (event) => {
  const target = event.target;
  if (!(target instanceof HTMLElement)) return;
  const card = target.closest("article.card");
  if (target.matches("button[data-decision]") && card) decide(card, target.dataset.decision);
  else if (target.matches("button.open-edit") && card) {
    const box = card.querySelector("div.edit");
    box.hidden = !box.hidden;
  } else if (target.matches("button[data-revoke]")) revoke(target);
});

// -- live updates -----------------------------------------------------------------------------

async function fragment(url) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) return null;
  const template = document.createElement("template");
  template.innerHTML = await response.text(); // server-rendered, every value escaped there
  return template.content;
}

async function refreshWaiting() {
  const section = document.getElementById("waiting");
  if (!section) return;
  const fresh = await fragment("/fragments/waiting");
  if (!fresh) return;
  const incoming = new Map([...fresh.querySelectorAll("article.card")].map((c) => [c.id, c]));
  // Cards someone acted on stay (their result is shown); the others follow the store.
  for (const card of section.querySelectorAll("article.card")) {
    if (!incoming.has(card.id) && !card.classList.contains("decided")) card.remove();
  }
  let anchor = null;
  for (const [id, card] of incoming) {
    const existing = document.getElementById(id);
    if (existing) { anchor = existing; continue; }
    if (anchor) anchor.after(card); else section.prepend(card);
    anchor = card;
  }
  const empty = section.querySelector("p.empty");
  const cards = section.querySelectorAll("article.card").length;
  if (cards && empty) empty.remove();
  if (!cards && !empty) {
    const note = document.createElement("p");
    note.className = "empty";
    note.textContent = "Nothing is waiting for a decision.";
    section.append(note);
  }
  countdowns();
}

async function refreshCalls() {
  const body = document.getElementById("calls");
  if (!body) return;
  const fresh = await fragment(`/fragments/calls${window.location.search}`);
  if (fresh) body.replaceChildren(fresh);
}

function live() {
  const badge = document.getElementById("live");
  if (!window.EventSource || !badge) return;
  const source = new EventSource("/api/stream");
  source.onopen = () => { badge.textContent = "live"; badge.dataset.state = "live"; };
  source.onerror = () => { badge.textContent = "reconnecting…"; badge.dataset.state = "down"; };
  source.addEventListener("approvals", refreshWaiting);
  source.addEventListener("calls", refreshCalls);
}

countdowns();
setInterval(countdowns, 1000);
live();
