// What the counter page says about a resolution, for a scan's row and a lookup's alike: a
// title, details and a badge, in words a cashier reads at a glance. Every word reaches the
// page as text (textContent), never as HTML: a product's or a device's name comes from
// whoever filled the catalog or made the USB device.

/**
 * A row of the page's scan template, filled for `event` as `resolution` resolved it.
 * @param {HTMLTemplateElement} template
 * @param {any} event
 * @param {any} resolution
 * @returns {HTMLLIElement}
 */
export function scanRow(template, event, resolution) {
  const fragment = /** @type {DocumentFragment} */ (template.content.cloneNode(true));
  const row = /** @type {HTMLLIElement} */ (fragment.querySelector(".scan"));
  const view = describe(event, resolution);
  row.dataset.status = resolution.status;
  if (event.kind) row.dataset.kind = event.kind;
  if (event.device) row.dataset.device = event.device;
  setText(row, ".scan-title", view.title);
  const detail = /** @type {Element} */ (row.querySelector(".scan-detail"));
  for (const part of view.detail) {
    if (detail.childNodes.length) detail.append(" · ");
    const span = document.createElement("span");
    span.textContent = part.text;
    if (part.className) span.className = part.className;
    detail.append(span);
  }
  setText(row, ".scan-badge", view.badge);
  setText(row, ".scan-code", event.uidDisplay ?? event.text ?? "");
  const time = /** @type {HTMLTimeElement} */ (row.querySelector(".scan-time"));
  const when = new Date(event.time);
  if (event.time && !Number.isNaN(when.getTime())) {
    time.dateTime = event.time;
    time.textContent = when.toLocaleTimeString();
  }
  return row;
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
 * What a row says: a title, details, and a badge for the outcome.
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
      unverified: "Card not verified",
    };
    const detail = [{ text: card }];
    // A secure card's tap that did not verify identifies no one: say why, in a cashier's words.
    if (resolution.status === "unverified") detail.push({ text: unverifiedWords[resolution.reason] ?? "its message did not verify" });
    else if (resolution.verified === true) detail.push({ text: "verified secure card" });
    return { title: titles[resolution.status] ?? "Card", detail, badge: statusWords(resolution.status) };
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
  if (!detail.length && event.kind) detail.push({ text: `${event.kind}${event.symbology ? ` (${event.symbology})` : ""}` });
  return { title: unknownTitles[resolution.status] ?? statusWords(resolution.status), detail, badge: statusWords(resolution.status) };
}

/** Why a secure card's tap did not verify, as `card-link` says it (`reason`). */
const unverifiedWords = {
  "no-message": "no secure message: a copy of the card?",
  replayed: "a message seen before: a copy of the card?",
  "bad-cmac": "its message's signature is wrong",
  "unknown-key": "not one of this shop's cards",
};

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
