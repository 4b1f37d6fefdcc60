// The counter page: the daemon's devices and its resolved scans, live.
//
// It talks to the daemon through scanbridge.mjs (the WebSocket client) rather than
// EventSource: one connection carries both `devices.list` and the subscription, the
// reconnect is ours to drive (an EventSource gives up for good on any answer but 200, such
// as a refused token or a restart's 503), and the page runs the very client a POS front end
// would use, so the browser tests of the page test it too.
import { connect, RPCError } from "./scanbridge.mjs";
import { scanRow } from "./scan-row.js";

const TOKEN_KEY = "scanbridge.token";
// The page keeps this many scans on screen; older rows go so that a long day cannot grow it.
const MAX_SCAN_ROWS = 200;
// On first load the page shows the latest scans, then follows from the last of them.
const RECENT_SCANS = 20;

const elements = {
  connection: byId("connection"),
  counter: byId("counter"),
  devices: byId("devices"),
  noDevices: byId("no-devices"),
  scans: byId("scans"),
  noScans: byId("no-scans"),
  gap: byId("gap"),
  tokenEntry: byId("token-entry"),
  tokenForm: /** @type {HTMLFormElement} */ (byId("token-form")),
  tokenInput: /** @type {HTMLInputElement} */ (byId("token-input")),
  tokenReason: byId("token-reason"),
  scanTemplate: /** @type {HTMLTemplateElement} */ (byId("scan-template")),
};

/** @type {Map<string, object>} */
const devices = new Map();
/** @type {import("./scanbridge.mjs").Client | null} */
let client = null;
let everOpened = false;
let probing = false;

/** @param {string} id */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

/** The token from the address's fragment (then taken out of the address bar), else the session's. */
function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromFragment = fragment.get("token");
  if (fromFragment) {
    sessionStorage.setItem(TOKEN_KEY, fromFragment);
    history.replaceState(null, "", location.pathname + location.search);
    return fromFragment;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** @param {string} [reason] */
function askForToken(reason) {
  elements.counter.hidden = true;
  elements.tokenEntry.hidden = false;
  if (reason) elements.tokenReason.textContent = reason;
  setConnection("unauthorized", "Not connected: a token is needed");
  elements.tokenInput.focus();
}

elements.tokenForm.addEventListener("submit", (submit) => {
  submit.preventDefault();
  const token = elements.tokenInput.value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  elements.tokenInput.value = "";
  start(token);
});

/**
 * @param {string} state
 * @param {string} text
 */
function setConnection(state, text) {
  elements.connection.dataset.state = state;
  elements.connection.textContent = text;
  document.body.dataset.connection = state;
}

/** @param {string} token */
function start(token) {
  elements.tokenEntry.hidden = true;
  elements.counter.hidden = false;
  setConnection("connecting", "Connecting…");
  everOpened = false;
  client?.close();
  const current = connect({ url: location.origin, token });
  client = current;
  current.onStateChange((state, { attempt }) => {
    if (client !== current) return;
    if (state === "open") {
      setConnection("open", "Connected");
      opened(current);
    } else if (state === "reconnecting") {
      setConnection("reconnecting", attempt > 1 ? `Reconnecting (attempt ${attempt})…` : "Reconnecting…");
      probeToken(current, token);
    } else if (state === "connecting") {
      setConnection("connecting", "Connecting…");
    }
  });
}

/**
 * Every (re)connection lists the devices afresh, since their notifications were missed
 * while it was down; the first one also shows the latest scans and subscribes after them.
 * @param {import("./scanbridge.mjs").Client} current
 */
async function opened(current) {
  try {
    const { devices: list } = await current.call("devices.list");
    devices.clear();
    for (const device of list) devices.set(device.id, device);
    renderDevices();
  } catch (error) {
    if (!(error instanceof RPCError)) throw error;
  }
  if (everOpened) return;
  everOpened = true;
  let since = 0;
  try {
    const { events } = await current.call("events.recent", { limit: RECENT_SCANS });
    for (const event of events) showScan(event);
    if (events.length) since = events[events.length - 1].seq;
  } catch (error) {
    if (!(error instanceof RPCError)) throw error;
    everOpened = false;
    return;
  }
  current.subscribe({ since }, (update) => {
    switch (update.type) {
      case "scan":
        showScan(update.event);
        break;
      case "device.added":
      case "device.changed":
      case "device.removed":
        devices.set(update.device.id, update.device);
        renderDevices();
        break;
      case "gap":
        elements.gap.hidden = false;
        elements.gap.textContent = `Scans ${update.from} to ${update.to} are older than the daemon keeps and cannot be shown.`;
        break;
      case "error":
        setConnection("closed", `The daemon refused the subscription: ${update.error.message}`);
        break;
    }
  });
}

/**
 * A WebSocket refused with 401 looks like any lost connection to a page, so after a failed
 * attempt the page asks the RPC endpoint whether the token still holds.
 * @param {import("./scanbridge.mjs").Client} current
 * @param {string} token
 */
async function probeToken(current, token) {
  if (probing) return;
  probing = true;
  try {
    const response = await fetch("/v1/rpc", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "bridge.hello", params: {} }),
    });
    if (client !== current) return;
    if (response.status === 401) {
      current.close();
      client = null;
      sessionStorage.removeItem(TOKEN_KEY);
      askForToken("The daemon refused this token (unknown, expired or revoked). Enter another one.");
    } else if (response.status === 403) {
      // Retrying cannot help: the daemon's configuration or the token must change.
      current.close();
      client = null;
      setConnection(
        "forbidden",
        `The daemon refuses pages from ${location.origin}: add it to the token's origins or to http.origins, then reload.`,
      );
    }
  } catch {
    // The daemon is down: the client keeps retrying.
  } finally {
    probing = false;
  }
}

function renderDevices() {
  const items = [...devices.values()].sort(
    (a, b) => String(a.name ?? "").localeCompare(String(b.name ?? "")) || String(a.id).localeCompare(String(b.id)),
  );
  elements.devices.replaceChildren(...items.map(deviceItem));
  elements.noDevices.hidden = items.some((device) => device.state !== "gone");
}

const STATE_WORDS = { ready: "Ready", busy: "In use by another program", error: "Error", gone: "Unplugged" };

/** @param {any} device */
function deviceItem(device) {
  const item = document.createElement("li");
  item.className = "device";
  item.dataset.deviceId = device.id;
  item.dataset.state = device.state;
  const name = document.createElement("span");
  name.className = "device-name";
  name.textContent = device.name || device.id;
  const state = document.createElement("span");
  state.className = "device-state";
  const words = STATE_WORDS[device.state] ?? device.state;
  state.textContent = `${device.kind} · ${device.state === "error" && device.error ? `${words}: ${device.error}` : words}`;
  item.append(name, state);
  return item;
}

/** @param {any} event */
function showScan(event) {
  if (elements.scans.querySelector(`[data-seq="${Number(event.seq)}"]`)) return;
  const row = scanRow(elements.scanTemplate, event, event.resolution ?? { handler: null, status: "unhandled" });
  row.dataset.seq = String(event.seq);
  row.value = event.seq;
  // Newest first; a scan replayed after a reconnect goes in its place by seq.
  const later = [...elements.scans.children].findLast((other) => Number(other.dataset.seq) > event.seq);
  elements.scans.insertBefore(row, later ? later.nextSibling : elements.scans.firstChild);
  while (elements.scans.children.length > MAX_SCAN_ROWS) elements.scans.lastElementChild?.remove();
  elements.noScans.hidden = true;
}

const token = takeToken();
if (token) start(token);
else askForToken();
