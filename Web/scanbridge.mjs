// ScanBridge client for browsers (and Node, where `WebSocket` is global): JSON-RPC 2.0 over
// the gateway's WebSocket (`/v1/ws`), with subscriptions that survive reconnects.
// One module, no dependency, no build step; its types are scanbridge.d.mts, beside it.
// docs/web.md shows how to use it. It lives in Web/ so that the daemon serves the very file
// it is tested with beside the counter page (`import … from "/scanbridge.mjs"`); Web/'s
// package.json publishes the same file for front ends that bundle it.

/** @typedef {import("./scanbridge.mjs").ConnectOptions} ConnectOptions */
/** @typedef {import("./scanbridge.mjs").CallOptions} CallOptions */
/** @typedef {import("./scanbridge.mjs").ConnectionState} ConnectionState */
/** @typedef {import("./scanbridge.mjs").SubscribeFilter} SubscribeFilter */
/** @typedef {import("./scanbridge.mjs").SubscriptionEvent} SubscriptionEvent */
/** @typedef {InstanceType<import("./scanbridge.mjs").WebSocketClass>} WebSocketLike */
/** @typedef {{resolve: (value: any) => void, reject: (error: unknown) => void}} Answer */

/** A JSON-RPC error answered by the daemon, or a call the client gave up on. */
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
/** The code of `RPCError` for a call that had no answer within its timeout. */
export const TIMED_OUT = -32098;
/**
 * How long a call waits, for the connection and its answer together, unless it says: long
 * enough for a daemon restart and the shared store's writes of a card or a customer, short
 * enough that a till whose daemon is down hears so while the customer still stands there.
 */
export const CALL_TIMEOUT_MS = 30_000;
// Past this, setTimeout fires at once; a longer timeout is no bound at all.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

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
 * @param {ConnectOptions} options
 * @returns {Client}
 */
export function connect(options) {
  return new Client(options);
}

/** One connection to the daemon's gateway, remade after every loss. */
export class Client {
  /** @param {ConnectOptions} options */
  constructor({ url, token, WebSocket: Socket = globalThis.WebSocket }) {
    if (!Socket) throw new Error("no WebSocket here: pass one as the WebSocket option");
    this._address = webSocketURL(url);
    this._protocols = webSocketProtocols(token);
    this._Socket = Socket;
    /** @type {WebSocketLike|null} */
    this._socket = null;
    this._nextId = 1;
    /** @type {Map<number, Answer>} */
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
    /** @type {Set<() => void>} calls waiting for the connection, woken by its opening or `close()` */
    this._openWaiters = new Set();
    this._open();
  }

  /**
   * Calls a method; resolves with its result or rejects with an `RPCError`. A call made
   * while the client connects or reconnects waits for the connection, as a reconnect after a
   * blip or a daemon restart takes a moment; its timeout bounds that wait and the answer's
   * together (`TIMED_OUT`), so a call to a daemon that is down fails in bounded time. A call
   * is never sent twice: one whose connection is lost before its answer rejects with
   * `CONNECTION_LOST` (the caller decides whether repeating it is safe). A call given up on
   * (timeout, abort) is forgotten: its answer, should it come, is dropped.
   * @param {string} method
   * @param {object} [params]
   * @param {CallOptions} [options]
   * @returns {Promise<any>}
   */
  call(method, params = {}, options = {}) {
    const { timeout = CALL_TIMEOUT_MS, signal } = options;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      /** @type {number|null} */
      let id = null;
      /** @type {(() => void)|null} */
      let stopWaiting = null;
      /** @type {ReturnType<typeof setTimeout>|undefined} */
      let timer;
      const onAbort = () => finish(reject, signal?.reason);
      /**
       * @param {(value: any) => void} settle
       * @param {unknown} value
       */
      const finish = (settle, value) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        stopWaiting?.();
        if (id !== null) this._pending.delete(id);
        settle(value);
      };
      if (timeout < LONGEST_TIMER_MS) {
        timer = setTimeout(() => {
          const what = id === null ? "the daemon could not be reached" : "the daemon did not answer";
          finish(reject, new RPCError(TIMED_OUT, `${method}: ${what} within ${timeout} ms`));
        }, timeout);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      stopWaiting = this._whenOpen(() => {
        stopWaiting = null;
        id = this._request(method, params, {
          resolve: (result) => finish(resolve, result),
          reject: (error) => finish(reject, error),
        });
      });
    });
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
   * @param {SubscribeFilter} filter
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
    this._wakeWaiters();
    const socket = this._socket;
    this._socket = null;
    if (socket) socket.close(1000, "client closed");
    this._failPending("the client was closed");
    this._setState("closed");
  }

  _open() {
    if (this._closed) return;
    /** @type {WebSocketLike} */
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
      this._wakeWaiters();
      for (const subscription of this._subscriptions) subscription._start();
    };
    socket.onmessage = (/** @type {{data: unknown}} */ message) => {
      if (this._socket === socket && typeof message.data === "string") this._receive(message.data);
    };
    const lost = () => {
      if (this._socket !== socket) return;
      this._socket = null;
      this._failPending("the connection to the daemon was lost");
      for (const subscription of this._subscriptions) subscription._lost();
      this._scheduleRetry();
    };
    socket.onclose = lost;
    // A browser follows an error with a close, which then finds the work done; Node 20's
    // WebSocket gives a connection it could not make an error and no close.
    socket.onerror = lost;
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

  /**
   * Runs `wake` once the connection is open (or the client closed), at once if it is.
   * @param {() => void} wake
   * @returns {(() => void)|null} what stops waiting, when it waits
   */
  _whenOpen(wake) {
    if (this._closed || this.state === "open") {
      wake();
      return null;
    }
    this._openWaiters.add(wake);
    return () => this._openWaiters.delete(wake);
  }

  _wakeWaiters() {
    const waiters = this._openWaiters;
    this._openWaiters = new Set();
    for (const wake of waiters) wake();
  }

  /**
   * Sends a request whose answer goes to `answer`; rejects it at once when not connected.
   * @param {string} method
   * @param {object} params
   * @param {Answer} answer
   * @returns {number|null} the request's id, when sent
   */
  _request(method, params, answer) {
    const socket = this._socket;
    if (!socket || this.state !== "open") {
      const reason = this._closed ? "the client was closed" : "not connected to the daemon";
      answer.reject(new RPCError(CONNECTION_LOST, reason));
      return null;
    }
    const id = this._nextId++;
    this._pending.set(id, answer);
    socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return id;
  }

  /**
   * A request of the client's own (subscriptions'), bounded by the connection alone.
   * @param {string} method
   * @param {object} params
   * @returns {Promise<any>}
   */
  _send(method, params) {
    return new Promise((resolve, reject) => this._request(method, params, { resolve, reject }));
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
   * @param {SubscribeFilter} filter
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
