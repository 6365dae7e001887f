// web/js/lib/api.js — the REST client of every page.
//
// JSON in and out, the page's token (auth.js) as "Authorization: Bearer",
// and every failure as an ApiError: the server's problem+json (RFC 9457:
// status, title, detail, and members such as field, refusal, seq) when it
// sent one, or status 0 when arbiterd could not be reached at all.
import { token } from "./auth.js";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export async function request(method, path, body) {
  const headers = { Accept: "application/json, application/problem+json" };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method, headers, cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { title: "Unreachable", detail: "arbiterd cannot be reached." });
  }
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch { /* not JSON: the text is the detail */ }
  if (!res.ok) throw new ApiError(res.status, json && typeof json === "object" ? json : { detail: text });
  return json;
}

export const get = (path) => request("GET", path);
export const post = (path, body = {}) => request("POST", path, body);

// Every item of a paged list ({items, next}; docs/architecture.md, "REST"),
// following next until the last page.
export async function getAll(path) {
  const items = [];
  const sep = path.includes("?") ? "&" : "?";
  for (let after = 0; ;) {
    const page = await get(`${path}${sep}limit=${PAGE}&after=${after}`);
    items.push(...page.items);
    if (page.next === null || page.next === undefined || page.items.length === 0) return items;
    after = page.next;
  }
}

// The largest page the API gives (api/tokens.c PAGE_LIMIT_MAX).
const PAGE = 1000;

// A path with ?query built from an object, skipping null values.
export function path(base, query = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== null && v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}
