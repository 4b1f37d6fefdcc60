// The counter page: the daemon's devices and its resolved scans, live, with the tools a
// shop's staff use beside them: a lookup box, card linking (card-link.js), and a filter
// that shows one device's scans.
//
// It talks to the daemon through scanbridge.mjs (the WebSocket client) rather than
// EventSource: one connection carries both `devices.list` and the subscription, the
// reconnect is ours to drive (an EventSource gives up for good on any answer but 200, such
// as a refused token or a restart's 503), and the page runs the very client a POS front end
// would use, so the browser tests of the page test it too.
import { connect, RPCError } from "./scanbridge.mjs";
import { CardLinking } from "./card-link.js";
import { scanRow } from "./scan-row.js";

const TOKEN_KEY = "scanbridge.token";
// The page keeps this many scans of each device; older rows go so that a long day cannot grow
// it, and a busy till does not push a quiet reader's scans out from under the device filter.
const MAX_SCAN_ROWS = 200;
// On first load the page shows the latest scans, then follows from the last of them.
const RECENT_SCANS = 20;
// A cashier waits on a lookup while the customer stands there: a few seconds, then the page says so.
const LOOKUP_TIMEOUT_MS = 5_000;

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
  deviceFilter: /** @type {HTMLSelectElement} */ (byId("device-filter")),
  lookupForm: /** @type {HTMLFormElement} */ (byId("lookup-form")),
  lookupInput: /** @type {HTMLInputElement} */ (byId("lookup-input")),
  lookupResult: byId("lookup-result"),
};

/** @type {Map<string, object>} */
const devices = new Map();
/** @type {import("./scanbridge.mjs").Client | null} */
let client = null;
/** @type {import("./scanbridge.mjs").Subscription | null} */
let subscription = null;
let everOpened = false;
let probing = false;
/** The id of the device whose scans the page shows, or "" for every device's. */
let shownDevice = new URLSearchParams(location.hash.slice(1)).get("device") ?? "";
/** @type {AbortController | null} */
let lookup = null;

const linking = new CardLinking(
  {
    form: /** @type {HTMLFormElement} */ (byId("arm-form")),
    fields: /** @type {HTMLFieldSetElement} */ (byId("arm-fields")),
    reason: byId("arm-reason"),
    wallet: /** @type {HTMLInputElement} */ (byId("arm-wallet")),
    name: /** @type {HTMLInputElement} */ (byId("arm-name")),
    reader: /** @type {HTMLSelectElement} */ (byId("arm-reader")),
    secure: /** @type {HTMLInputElement} */ (byId("arm-secure")),
    status: byId("arm-status"),
    cancel: /** @type {HTMLButtonElement} */ (byId("arm-cancel")),
  },
  () => subscription?.lastSeq ?? 0,
);

/** @param {string} id */
function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

/**
 * The token from the address's fragment (then taken out of the address bar, the rest of the
 * fragment kept), else the session's.
 */
function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fromFragment = fragment.get("token");
  if (fromFragment) {
    sessionStorage.setItem(TOKEN_KEY, fromFragment);
    fragment.delete("token");
    replaceFragment(fragment);
    return fromFragment;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/**
 * The page's state that a reload or a bookmark keeps (the device filter) lives in the
 * fragment, which never reaches the server; the token never does, in the address bar.
 * @param {URLSearchParams} fragment
 */
function replaceFragment(fragment) {
  const text = fragment.toString();
  history.replaceState(null, "", location.pathname + location.search + (text ? `#${text}` : ""));
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
  linking.setClient(current);
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
  learnRole(current);
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
  subscription = current.subscribe({ since }, (update) => {
    switch (update.type) {
      case "scan":
        showScan(update.event);
        linking.heard(update.event);
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
 * The token's role decides what the page offers (a reader's may not link cards); asked on
 * every connection, since the token may have been replaced meanwhile.
 * @param {import("./scanbridge.mjs").Client} current
 */
async function learnRole(current) {
  try {
    const hello = await current.call("bridge.hello");
    if (client !== current) return;
    document.body.dataset.role = hello.role;
    linking.setRole(hello.role);
  } catch (error) {
    // Unknown, the role is learnt from a refusal instead.
    if (!(error instanceof RPCError)) throw error;
  }
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

/** The devices by name, as the page lists them. */
function sortedDevices() {
  return [...devices.values()].sort(
    (a, b) => String(a.name ?? "").localeCompare(String(b.name ?? "")) || String(a.id).localeCompare(String(b.id)),
  );
}

function renderDevices() {
  const items = sortedDevices();
  elements.devices.replaceChildren(...items.map(deviceItem));
  elements.noDevices.hidden = items.some((device) => device.state !== "gone");
  renderDeviceFilter(items);
  linking.setDevices(items);
}

/**
 * The filter lists every device the page knows; the one chosen stays listed when the daemon
 * no longer does (after its restart), so that the choice does not change behind the user.
 * @param {any[]} items
 */
function renderDeviceFilter(items) {
  // Option's text is a text node, never parsed as HTML.
  const options = items.map(
    (device) => new Option(`${device.name || device.id}${device.state === "gone" ? " (unplugged)" : ""}`, device.id),
  );
  if (shownDevice && !devices.has(shownDevice)) options.push(new Option(shownDevice, shownDevice));
  elements.deviceFilter.replaceChildren(new Option("every device", ""), ...options);
  elements.deviceFilter.value = shownDevice;
}

elements.deviceFilter.addEventListener("change", () => showDevice(elements.deviceFilter.value));

/** @param {string} id the device whose scans to show, or "" for every device's */
function showDevice(id) {
  shownDevice = id;
  renderDeviceFilter(sortedDevices());
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (id) fragment.set("device", id);
  else fragment.delete("device");
  replaceFragment(fragment);
  for (const row of elements.scans.children) filterRow(/** @type {HTMLElement} */ (row));
  renderNoScans();
}

/** @param {HTMLElement} row */
function filterRow(row) {
  row.hidden = shownDevice !== "" && row.dataset.device !== shownDevice;
}

function renderNoScans() {
  const shown = [...elements.scans.children].some((row) => !(/** @type {HTMLElement} */ (row).hidden));
  elements.noScans.hidden = shown;
  elements.noScans.textContent = shownDevice
    ? "No scan from this device yet; its scans appear here as they happen."
    : "Scans appear here as they happen.";
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
  filterRow(row);
  // Newest first; a scan replayed after a reconnect goes in its place by seq.
  const later = [...elements.scans.children].findLast((other) => Number(other.dataset.seq) > event.seq);
  elements.scans.insertBefore(row, later ? later.nextSibling : elements.scans.firstChild);
  const ofItsDevice = [...elements.scans.children].filter((other) => other.dataset.device === row.dataset.device);
  if (ofItsDevice.length > MAX_SCAN_ROWS) ofItsDevice[ofItsDevice.length - 1].remove();
  renderNoScans();
}

/**
 * A typed or pasted code, resolved as a scan of it would be but journaled nowhere: as a repair
 * order first and a product next, the order the daemon's handlers take a scan in, since an
 * order reference may also be a SKU's text. A code that is neither says why the catalog did
 * not take it (a check digit, say), which is what a cashier typing a barcode needs to hear.
 */
elements.lookupForm.addEventListener("submit", async (submit) => {
  submit.preventDefault();
  const code = elements.lookupInput.value.trim();
  const current = client;
  if (!code || !current) return;
  lookup?.abort();
  const mine = new AbortController();
  lookup = mine;
  elements.lookupResult.setAttribute("aria-busy", "true");
  const options = { timeout: LOOKUP_TIMEOUT_MS, signal: mine.signal };
  let resolution;
  try {
    const [order, product] = await Promise.all([
      current.call("orders.lookup", { code }, options),
      current.call("products.lookup", { code }, options),
    ]);
    resolution = oneAnswer(order, product);
  } catch (error) {
    if (mine.signal.aborted) return;
    resolution = { handler: null, status: "error", message: error instanceof Error ? error.message : String(error) };
  }
  if (lookup !== mine) return;
  lookup = null;
  elements.lookupResult.removeAttribute("aria-busy");
  elements.lookupResult.replaceChildren(scanRow(elements.scanTemplate, { text: code }, resolution));
  elements.lookupInput.select();
});

/**
 * What the page shows for a typed code from the answers of `orders.lookup` and
 * `products.lookup`: what was found, else what was malformed, else both reasons.
 * @param {any} order
 * @param {any} product
 */
function oneAnswer(order, product) {
  for (const status of ["found", "invalid"]) {
    if (order.status === status) return { ...order, handler: "order-lookup" };
    if (product.status === status) return { ...product, handler: "product-lookup" };
  }
  const reason = [product.reason, order.reason].filter(Boolean).join("; ");
  return { handler: null, status: "not_found", ...(reason ? { reason } : {}) };
}

// An address pasted into the open tab that differs only in its fragment loads nothing: the
// page takes a token and a device from it as a load would.
addEventListener("hashchange", () => {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const fresh = fragment.has("token") ? takeToken() : null;
  if (fresh) start(fresh);
  showDevice(fragment.get("device") ?? "");
});

const token = takeToken();
if (token) start(token);
else askForToken();
