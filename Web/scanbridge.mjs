// ScanBridge client for browsers (and Node, where `WebSocket` is global): JSON-RPC 2.0 over
// the gateway's WebSocket (`/v1/ws`), with subscriptions that survive reconnects.
// One module, no dependency, no build step. docs/web.md shows how to use it. It lives in Web/
// so that the daemon serves it beside the counter page (`import … from "/scanbridge.mjs"`);
// clients/js/scanbridge.mjs links to it for those who copy it into their own front end.

/**
 * @typedef {object} Device
 * @property {string} id stable across unplug/replug and restarts
 * @property {string} driver `mock`, `pcsc`, `evdev`, `hidpos`, `serial`, `v4l2`, or a plugin's name
 * @property {"nfc"|"barcode"|"qr"} kind
 * @property {string} name
 * @property {"ready"|"busy"|"error"|"gone"} state
 * @property {string} [error] a sentence, when `state` is `error`
 * @property {string|null} [vendorId]
 * @property {string|null} [productId]
 * @property {string|null} [serial]
 * @property {string|null} [path]
 */

/**
 * @typedef {object} Product
 * @property {string} id
 * @property {string|null} [storeId] null: no store (every daemon finds the product)
 * @property {string} name
 * @property {string} price a decimal string with its currency's ISO 4217 decimals (`"3.50"` GBP, `"500"` JPY, `"1.250"` KWD)
 * @property {string} currency ISO 4217
 * @property {string} [sku]
 * @property {string} [category]
 * @property {string} [barcode]
 * @property {string} [gtin]
 * @property {boolean} [trackStock]
 * @property {number} [quantity]
 * @property {number} [lowStockThreshold]
 * @property {"notTracked"|"inStock"|"low"|"outOfStock"} [stockStatus]
 * @property {boolean} [canSell]
 */

/**
 * @typedef {object} Card
 * @property {string} uid
 * @property {string} uidDisplay
 * @property {string} walletAddress
 * @property {string|null} cardName
 * @property {string} displayName
 * @property {"active"|"inactive"|"blocked"} status
 * @property {string} createdAt
 */

/**
 * @typedef {object} Customer
 * @property {string} walletAddress
 * @property {string|null} name
 * @property {string|null} email
 * @property {string|null} phone
 * @property {object} [milestones]
 */

/**
 * @typedef {object} RepairDevice
 * @property {string} id
 * @property {string} orderId
 * @property {string} [make]
 * @property {string} [model]
 * @property {string} [serial]
 * @property {string} [status]
 */

/**
 * @typedef {object} Order
 * @property {string} id
 * @property {string} reference
 * @property {string} status
 * @property {string} [clientId]
 * @property {string} [clientName]
 * @property {string} [createdAt]
 * @property {RepairDevice[]} [devices]
 */

/**
 * @typedef {object} Resolution
 * @property {string|null} handler `product-lookup`, `card-link`, `order-lookup`, a plugin's name, or null
 * @property {string} status `found`, `not_found`, `invalid`, `identified`, `unknown`, `unhandled`, `error`, `timeout`, …
 * @property {Product} [product]
 * @property {string} [gtin]
 * @property {string} [reason]
 * @property {Card} [card]
 * @property {Customer} [customer]
 * @property {Order} [order]
 * @property {RepairDevice} [device]
 * @property {string} [message]
 */

/**
 * @typedef {object} ScanEvent
 * @property {number} seq strictly increasing, gap-free, survives restarts
 * @property {string} id
 * @property {string} time RFC 3339 UTC
 * @property {string} device
 * @property {string} driver
 * @property {"nfc"|"barcode"|"qr"} kind
 * @property {string} [symbology]
 * @property {string} [aim]
 * @property {string} [text]
 * @property {string} [raw]
 * @property {string} [uid]
 * @property {string} [uidDisplay]
 * @property {Object<string,string>} [gs1]
 * @property {Resolution} resolution
 */

/**
 * What a subscription hands its callback: a scan, a device change, or a gap in the journal.
 * @typedef {{type: "scan", event: ScanEvent}
 *   | {type: "device.added"|"device.removed"|"device.changed", device: Device}
 *   | {type: "gap", from: number, to: number}
 *   | {type: "error", error: RPCError}} SubscriptionEvent
 */

/**
 * @typedef {"connecting"|"open"|"reconnecting"|"closed"} ConnectionState
 */

/** A JSON-RPC error answered by the daemon, or a call cut short by a lost connection. */
export class RPCError extends Error {
  /**
   * @param {number} code
   * @param {string} message
   * @param {unknown} [data]
   */
  constructor(code, message, data) {
    super(message);
    this.name = "RPCError";
    this.code = code;
    this.data = data;
  }
}

/** The code of `RPCError` for a call whose connection closed before its answer came. */
export const CONNECTION_LOST = -32099;

// Reconnect waits grow from the first to the last, with jitter so that many counters do
// not all come back at the same instant after a daemon restart.
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 10_000;
// Notifications of a subscription whose `events.subscribe` answer has not been read yet
// are held until it is; bounded so that a confused server cannot grow it without end.
const MAX_HELD_NOTIFICATIONS = 10_000;

/**
 * Calls an application's callback; what it throws is reported as uncaught, and never
 * breaks the client's own work (starting subscriptions, reading the next message).
 * @param {Function} callback
 * @param {...any} values
 */
function handOver(callback, ...values) {
  try {
    callback(...values);
  } catch (error) {
    if (typeof globalThis.reportError === "function") globalThis.reportError(error);
    else setTimeout(() => { throw error; }, 0);
  }
}

/**
 * The gateway's WebSocket address for `url` (an http(s) or ws(s) address of the daemon;
 * a bare origin gets `/v1/ws`).
 * @param {string} url
 * @returns {string}
 */
export function webSocketURL(url) {
  const address = new URL(url, globalThis.location?.href);
  if (address.protocol === "http:") address.protocol = "ws:";
  if (address.protocol === "https:") address.protocol = "wss:";
  if (address.pathname === "/" || address.pathname === "") address.pathname = "/v1/ws";
  address.hash = "";
  return address.toString();
}

/**
 * The subprotocols a WebSocket offers to carry `token`: a browser's WebSocket can send no
 * other header, and a secret in the URL would be kept by every proxy log and history it
 * passes. The daemon answers with `scanbridge`.
 * @param {string} [token]
 * @returns {string[]}
 */
export function webSocketProtocols(token) {
  return token ? ["scanbridge", `scanbridge.bearer.${token}`] : [];
}

/**
 * Opens a client; it connects at once and reconnects by itself until `close()`.
 * @param {{url: string, token?: string, WebSocket?: typeof WebSocket}} options
 * @returns {Client}
 */
export function connect(options) {
  return new Client(options);
}

/** One connection to the daemon's gateway, remade after every loss. */
export class Client {
  /** @param {{url: string, token?: string, WebSocket?: typeof WebSocket}} options */
  constructor({ url, token, WebSocket: Socket = globalThis.WebSocket }) {
    if (!Socket) throw new Error("no WebSocket here: pass one as the WebSocket option");
    this._address = webSocketURL(url);
    this._protocols = webSocketProtocols(token);
    this._Socket = Socket;
    /** @type {WebSocket|null} */
    this._socket = null;
    this._nextId = 1;
    /** @type {Map<number, {resolve: (value: any) => void, reject: (error: Error) => void}>} */
    this._pending = new Map();
    /** @type {Set<Subscription>} */
    this._subscriptions = new Set();
    /** @type {Set<(method: string, params: any) => void>} */
    this._notificationListeners = new Set();
    /** @type {Set<(state: ConnectionState, detail: {attempt: number}) => void>} */
    this._stateListeners = new Set();
    /** @type {ConnectionState} */
    this.state = "connecting";
    this._attempt = 0;
    this._closed = false;
    /** @type {ReturnType<typeof setTimeout>|null} */
    this._retryTimer = null;
    /** @type {Array<() => void>} */
    this._openWaiters = [];
    this._open();
  }

  /**
   * Calls a method; resolves with its result or rejects with an `RPCError`. Waits for the
   * connection when it is being made; a call is never sent twice, so one whose connection
   * is lost before its answer rejects with `CONNECTION_LOST` (the caller decides whether
   * repeating it is safe).
   * @param {string} method
   * @param {object} [params]
   * @returns {Promise<any>}
   */
  async call(method, params = {}) {
    await this._whenOpen();
    return this._send(method, params);
  }

  /**
   * Hears every notification (`scan`, `device.added`, …) as it comes, with its params.
   * @param {(method: string, params: any) => void} listener
   * @returns {() => void} stops listening
   */
  onNotification(listener) {
    this._notificationListeners.add(listener);
    return () => this._notificationListeners.delete(listener);
  }

  /**
   * Hears the connection's state: `connecting`, `open`, `reconnecting` (with the attempt
   * number), `closed` (after `close()`).
   * @param {(state: ConnectionState, detail: {attempt: number}) => void} listener
   * @returns {() => void} stops listening
   */
  onStateChange(listener) {
    this._stateListeners.add(listener);
    return () => this._stateListeners.delete(listener);
  }

  /**
   * Subscribes to scans and device changes. After each reconnect it subscribes again with
   * `since` = the last seq it delivered, so no scan is missed and none comes twice.
   * @param {{kinds?: string[], devices?: string[], since?: number}} filter
   * @param {(event: SubscriptionEvent) => void} onEvent
   * @returns {Subscription}
   */
  subscribe(filter, onEvent) {
    const subscription = new Subscription(this, filter, onEvent);
    this._subscriptions.add(subscription);
    if (this.state === "open") subscription._start();
    return subscription;
  }

  /** Closes the connection for good: pending calls reject, subscriptions end. */
  close() {
    this._closed = true;
    if (this._retryTimer) clearTimeout(this._retryTimer);
    this._subscriptions.clear();
    // Calls waiting for a connection wake to find none, and reject.
    const waiters = this._openWaiters;
    this._openWaiters = [];
    for (const wake of waiters) wake();
    const socket = this._socket;
    this._socket = null;
    if (socket) socket.close(1000, "client closed");
    this._failPending("the client was closed");
    this._setState("closed");
  }

  _open() {
    if (this._closed) return;
    let socket;
    try {
      socket = new this._Socket(this._address, this._protocols);
    } catch (error) {
      this._scheduleRetry();
      return;
    }
    this._socket = socket;
    socket.onopen = () => {
      if (this._socket !== socket) return;
      this._attempt = 0;
      this._setState("open");
      const waiters = this._openWaiters;
      this._openWaiters = [];
      for (const wake of waiters) wake();
      for (const subscription of this._subscriptions) subscription._start();
    };
    socket.onmessage = (message) => {
      if (this._socket === socket && typeof message.data === "string") this._receive(message.data);
    };
    socket.onclose = () => {
      if (this._socket !== socket) return;
      this._socket = null;
      this._failPending("the connection to the daemon was lost");
      for (const subscription of this._subscriptions) subscription._lost();
      this._scheduleRetry();
    };
    // An error is always followed by a close, which does the work.
    socket.onerror = () => {};
  }

  _scheduleRetry() {
    if (this._closed) return;
    this._attempt += 1;
    this._setState("reconnecting");
    const ceiling = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(this._attempt - 1, 10));
    const wait = ceiling / 2 + Math.random() * (ceiling / 2);
    this._retryTimer = setTimeout(() => {
      this._retryTimer = null;
      this._open();
    }, wait);
  }

  /** @param {ConnectionState} state */
  _setState(state) {
    this.state = state;
    for (const listener of this._stateListeners) handOver(listener, state, { attempt: this._attempt });
  }

  _whenOpen() {
    if (this._closed) return Promise.reject(new RPCError(CONNECTION_LOST, "the client was closed"));
    if (this.state === "open") return Promise.resolve();
    return new Promise((resolve) => this._openWaiters.push(resolve));
  }

  /**
   * @param {string} method
   * @param {object} params
   * @returns {Promise<any>}
   */
  _send(method, params) {
    const socket = this._socket;
    if (!socket || this.state !== "open") {
      return Promise.reject(new RPCError(CONNECTION_LOST, "not connected to the daemon"));
    }
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      this._pending.set(id, { resolve, reject });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** @param {string} reason */
  _failPending(reason) {
    const pending = this._pending;
    this._pending = new Map();
    for (const { reject } of pending.values()) reject(new RPCError(CONNECTION_LOST, reason));
  }

  /** @param {string} text */
  _receive(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    for (const one of Array.isArray(message) ? message : [message]) {
      if (!one || typeof one !== "object") continue;
      if (typeof one.method === "string") {
        // A daemon request (handlers) is not for this client: say so rather than leave it waiting.
        if (one.id !== undefined && one.id !== null) {
          this._socket?.send(
            JSON.stringify({ jsonrpc: "2.0", id: one.id, error: { code: -32601, message: "this client serves no requests" } }),
          );
          continue;
        }
        this._notify(one.method, one.params ?? {});
      } else if (this._pending.has(one.id)) {
        const { resolve, reject } = /** @type {any} */ (this._pending.get(one.id));
        this._pending.delete(one.id);
        if (one.error) reject(new RPCError(one.error.code, one.error.message, one.error.data));
        else resolve(one.result);
      }
    }
  }

  /**
   * @param {string} method
   * @param {any} params
   */
  _notify(method, params) {
    for (const subscription of this._subscriptions) {
      if (subscription._accepts(params?.subscription)) subscription._deliver(method, params);
    }
    for (const listener of this._notificationListeners) handOver(listener, method, params);
  }
}

/** A subscription that keeps its place across reconnects. */
export class Subscription {
  /**
   * @param {Client} client
   * @param {{kinds?: string[], devices?: string[], since?: number}} filter
   * @param {(event: SubscriptionEvent) => void} onEvent
   */
  constructor(client, filter, onEvent) {
    this._client = client;
    this._filter = { kinds: filter.kinds, devices: filter.devices };
    this._onEvent = onEvent;
    /** The seq of the last scan delivered; the next subscription starts after it. */
    this.lastSeq = typeof filter.since === "number" ? filter.since : null;
    /** @type {string|null} the daemon's id of the current subscription */
    this._id = null;
    this._starting = false;
    /** @type {Array<[string, any]>} notifications that came before the subscribe answer */
    this._held = [];
    this._ended = false;
  }

  /** Ends the subscription. */
  close() {
    this._ended = true;
    this._client._subscriptions.delete(this);
    const id = this._id;
    this._id = null;
    if (id && this._client.state === "open") {
      this._client._send("events.unsubscribe", { subscription: id }).catch(() => {});
    }
  }

  async _start() {
    if (this._ended || this._starting) return;
    this._starting = true;
    this._id = null;
    this._held = [];
    const params = {};
    if (this._filter.kinds) params.kinds = this._filter.kinds;
    if (this._filter.devices) params.devices = this._filter.devices;
    if (this.lastSeq !== null) params.since = this.lastSeq;
    try {
      const result = await this._client._send("events.subscribe", params);
      if (this._ended) return;
      this._id = result.subscription;
      // Without `since`, the first subscription starts at the live end.
      if (this.lastSeq === null && typeof result.seq === "number") this.lastSeq = result.seq;
      const held = this._held;
      this._held = [];
      for (const [method, notification] of held) {
        if (notification.subscription === this._id) this._deliver(method, notification);
      }
    } catch (error) {
      // A lost connection starts it again on reconnect; a refusal (bad filter, overloaded)
      // is the caller's to see.
      if (!(error instanceof RPCError && error.code === CONNECTION_LOST)) {
        handOver(this._onEvent, { type: "error", error });
      }
    } finally {
      this._starting = false;
    }
  }

  _lost() {
    this._id = null;
    this._held = [];
  }

  /** @param {unknown} id */
  _accepts(id) {
    return id !== undefined && (id === this._id || (this._starting && this._id === null));
  }

  /**
   * @param {string} method
   * @param {any} params
   */
  _deliver(method, params) {
    if (this._ended) return;
    if (this._id === null) {
      if (this._held.length < MAX_HELD_NOTIFICATIONS) this._held.push([method, params]);
      return;
    }
    switch (method) {
      case "scan": {
        const event = params.event;
        if (!event || typeof event.seq !== "number") return;
        // A resubscription replays from `since`; the seq filter keeps each scan to once.
        if (this.lastSeq !== null && event.seq <= this.lastSeq) return;
        this.lastSeq = event.seq;
        handOver(this._onEvent, { type: "scan", event });
        return;
      }
      case "device.added":
      case "device.removed":
      case "device.changed":
        if (params.device) handOver(this._onEvent, { type: method, device: params.device });
        return;
      case "events.gap":
        handOver(this._onEvent, { type: "gap", from: params.from, to: params.to });
        return;
      case "events.overflow": {
        // The daemon dropped events for this slow reader: start over from the last one seen.
        const id = this._id;
        this._id = null;
        if (id) this._client._send("events.unsubscribe", { subscription: id }).catch(() => {});
        this._start();
        return;
      }
    }
  }
}
