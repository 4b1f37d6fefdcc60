// The counter page: the daemon's devices and its resolved scans, live.
//
// It talks to the daemon through scanbridge.mjs (the WebSocket client) rather than
// EventSource: one connection carries both `devices.list` and the subscription, the
// reconnect is ours to drive (an EventSource gives up for good on any answer but 200, such
// as a refused token or a restart's 503), and the page runs the very client a POS front end
// would use, so the browser tests of the page test it too.
import { connect, RPCError } from "./scanbridge.mjs";

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
  const fragment = /** @type {DocumentFragment} */ (elements.scanTemplate.content.cloneNode(true));
  const row = /** @type {HTMLLIElement} */ (fragment.querySelector(".scan"));
  const resolution = event.resolution ?? { handler: null, status: "unhandled" };
  const view = describe(event, resolution);
  row.dataset.seq = String(event.seq);
  row.dataset.status = resolution.status;
  row.dataset.kind = event.kind;
  row.dataset.device = event.device;
  row.value = event.seq;
  setText(row, ".scan-title", view.title);
  const detail = row.querySelector(".scan-detail");
  for (const part of view.detail) {
    if (detail.childNodes.length) detail.append(" · ");
    const span = document.createElement("span");
    span.textContent = part.text;
    if (part.className) span.className = part.className;
    detail.append(span);
  }
  setText(row, ".scan-badge", view.badge);
  setText(row, ".scan-code", event.uidDisplay ?? event.text ?? "");
  const time = row.querySelector(".scan-time");
  const when = new Date(event.time);
  if (!Number.isNaN(when.getTime())) {
    time.dateTime = event.time;
    time.textContent = when.toLocaleTimeString();
  }
  // Newest first; a scan replayed after a reconnect goes in its place by seq.
  const later = [...elements.scans.children].findLast((other) => Number(other.dataset.seq) > event.seq);
  elements.scans.insertBefore(row, later ? later.nextSibling : elements.scans.firstChild);
  while (elements.scans.children.length > MAX_SCAN_ROWS) elements.scans.lastElementChild?.remove();
  elements.noScans.hidden = true;
}

/**
 * @param {Element} row
 * @param {string} selector
 * @param {string} text
 */
function setText(row, selector, text) {
  const element = row.querySelector(selector);
  if (element) element.textContent = text;
}

/**
 * What a scan row says: a title, details, and a badge for the outcome.
 * @param {any} event
 * @param {any} resolution
 * @returns {{title: string, detail: {text: string, className?: string}[], badge: string}}
 */
function describe(event, resolution) {
  const code = event.uidDisplay ?? event.text ?? "";
  const product = resolution.product;
  const order = resolution.order;
  if (product && resolution.status === "found") {
    // An item priced at the counter costs what its barcode says, not the catalog's price.
    const embedded = resolution.embedded?.price;
    const price = embedded
      ? `${formatMoney(embedded, resolution.embedded.currency ?? product.currency)} (price from the barcode)`
      : formatMoney(product.price, product.currency);
    const detail = [{ text: price, className: "price" }];
    detail.push({ text: stockWords(product) });
    return { title: product.name, detail, badge: product.canSell === false ? "Cannot sell" : "Product" };
  }
  if (resolution.handler === "card-link" || event.kind === "nfc") {
    const customer = resolution.customer;
    const who = customer?.name || customer?.walletAddress || resolution.card?.walletAddress;
    const card = resolution.card?.displayName ?? `Card ${code}`;
    const titles = {
      identified: who ?? card,
      linked: who ? `Linked to ${who}` : "Card linked",
      unknown: "Unknown card",
      blocked: "Blocked card",
      inactive: "Inactive card",
      conflict: "Card linked to another customer",
    };
    return { title: titles[resolution.status] ?? "Card", detail: [{ text: card }], badge: statusWords(resolution.status) };
  }
  if (order && resolution.status === "found") {
    const detail = [{ text: `${order.clientName ?? "No client"} · ${statusWords(order.status)}` }];
    const device = resolution.device;
    if (device) detail.push({ text: [device.make, device.model, device.serial].filter(Boolean).join(" ") });
    return { title: `Order ${order.reference ?? order.id}`, detail, badge: "Repair order" };
  }
  const unknownTitles = { not_found: "Unknown code", invalid: "Invalid code", unhandled: "Unrecognised scan", error: "Lookup failed", timeout: "Lookup timed out" };
  const detail = [];
  if (resolution.reason) detail.push({ text: resolution.reason });
  if (resolution.message) detail.push({ text: resolution.message });
  if (!detail.length) detail.push({ text: `${event.kind}${event.symbology ? ` (${event.symbology})` : ""}` });
  return { title: unknownTitles[resolution.status] ?? statusWords(resolution.status), detail, badge: statusWords(resolution.status) };
}

/** @param {string} status */
function statusWords(status) {
  return String(status ?? "").replaceAll("_", " ");
}

/** @param {any} product */
function stockWords(product) {
  switch (product.stockStatus) {
    case "notTracked":
      return "stock not tracked";
    case "outOfStock":
      return `out of stock (${product.quantity ?? 0})`;
    case "low":
      return `low stock: ${product.quantity}`;
    default:
      return typeof product.quantity === "number" ? `in stock: ${product.quantity}` : "in stock";
  }
}

/**
 * Formats an amount in its currency's own decimals (0 for JPY, 3 for KWD). The amount is
 * a decimal string on the wire with exactly the decimals of its currency's ISO 4217 minor
 * unit, and is handed to Intl as a string with that many decimals, so it is never rounded
 * through a binary fraction nor to the browser's own idea of the currency (some browsers
 * give IQD no decimals); a whole number of minor units is accepted too.
 * @param {string|number} amount
 * @param {string} currency
 */
function formatMoney(amount, currency) {
  let format;
  const digits = typeof amount === "string" ? (amount.split(".")[1] ?? "").length : undefined;
  try {
    format = new Intl.NumberFormat(undefined, {
      style: "currency",
      currency,
      ...(digits === undefined ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits }),
    });
  } catch {
    return `${amount} ${currency ?? ""}`.trim();
  }
  if (typeof amount === "number" && Number.isInteger(amount)) {
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(/** @type {any} */ (minorToDecimal(amount, digits)));
  }
  return format.format(/** @type {any} */ (String(amount)));
}

/**
 * @param {number} minor
 * @param {number} digits
 */
function minorToDecimal(minor, digits) {
  const sign = minor < 0 ? "-" : "";
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  return digits ? `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}` : `${sign}${text}`;
}

const token = takeToken();
if (token) start(token);
else askForToken();
