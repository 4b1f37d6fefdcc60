// The types of scanbridge.mjs, for TypeScript and editors. Written by hand beside the module:
// they are the wire contract of docs/protocol.md as a JavaScript caller sees it, which no
// code here could infer. scripts/check-types.sh holds the method map and the shapes to its
// machine-readable form, contract/openrpc.json, checks the module against these types, and
// compiles an example app and rejected calls.

// ---- What the daemon sends ----

/** What a device reads; an event's `kind` is its device's. */
export type ReadingKind = "nfc" | "barcode" | "qr";

export type Role = "reader" | "operator" | "admin";

export type BarcodeSymbology =
  | "ean-13" | "ean-8" | "upc-a" | "upc-e" | "code-128" | "gs1-128" | "code-39" | "code-93"
  | "itf" | "codabar" | "databar" | "qr" | "data-matrix" | "pdf417" | "aztec" | "unknown";
export type NFCSymbology = "iso14443a" | "iso14443b" | "iso15693" | "felica" | "unknown";
export type Symbology = BarcodeSymbology | NFCSymbology;

/** An RFC 3339 time in UTC with milliseconds, `2026-11-21T09:40:00.123Z`. */
export type Time = string;

/**
 * Money: a decimal string with exactly its currency's ISO 4217 decimals (`"3.50"` GBP,
 * `"500"` JPY, `"1.250"` KWD). Never a float: add minor units, not these.
 */
export type Amount = string;

export interface Device {
  /** Stable across unplug and replug, and across daemon restarts. */
  id: string;
  /** `mock`, `pcsc`, `evdev`, `hidpos`, `serial`, `v4l2`, `file-camera`, or a plugin's name. */
  driver: string;
  kind: ReadingKind;
  name: string;
  state: "ready" | "busy" | "error" | "gone";
  /** Why, in a sentence, when there is something to say (`error`, sometimes `busy`). */
  error?: string;
  /** Which setting to change, when the driver sees signs of a wrong one. */
  hint?: string;
  /** Four hex digits (`072f`). */
  vendorId: string | null;
  productId: string | null;
  serial: string | null;
  /** The device node. */
  path: string | null;
}

export type StockStatus = "notTracked" | "inStock" | "low" | "outOfStock";

export interface Product {
  id: string;
  /** Null: no store, so every daemon finds it. */
  storeId: string | null;
  name: string;
  price: Amount;
  /** ISO 4217, upper case. */
  currency: string;
  sku: string | null;
  category: string | null;
  barcode: string | null;
  /** The GTIN-14 of `barcode` when it is a GTIN with a right check digit. */
  gtin: string | null;
  trackStock: boolean;
  quantity: number;
  lowStockThreshold: number;
  allowNegativeStock: boolean;
  stockStatus: StockStatus;
  canSell: boolean;
  /** The product this one is a variant of. */
  parentId?: string;
  /** The variant's title. */
  variant?: string;
}

/** The value printed in an in-store price or weight barcode. */
export type Embedded =
  | { price: Amount; currency: string }
  /** A weight; priced once the product is found, at its price per kg. */
  | { weightKg: number; price?: Amount; currency?: string };

export type CardStatus = "active" | "inactive" | "blocked";

/** `uid`: any read of the card's UID identifies its wallet; `secure`: only a tap whose Secure Unique NFC message verified. */
export type CardSecurity = "uid" | "secure";

/** A tap's Secure Unique NFC message as the daemon judged it (never the keys or the encrypted data). */
export interface SUNReading {
  verified: boolean;
  /** The tag's read counter, when the message could be read. */
  counter?: number;
}

export interface Card {
  /** Upper-case hex, no separators (a reader sees all but the last two bytes as `••`). */
  uid: string;
  /** The same with colons. */
  uidDisplay: string;
  walletAddress: string;
  cardName: string | null;
  /** `cardName`, else "Card " and the last 4 characters of `uidDisplay`. */
  displayName: string;
  status: CardStatus;
  security: CardSecurity;
  createdAt: Time;
}

export interface Milestones {
  firstCardLinkedAt: Time | null;
  firstPaymentAt: Time | null;
  autoSignEnabledAt: Time | null;
}

export interface Customer {
  walletAddress: string;
  name: string | null;
  /** Left out of what a reader-role connection sees. */
  email?: string | null;
  /** Left out of what a reader-role connection sees. */
  phone?: string | null;
  milestones: Milestones;
  createdAt: Time;
}

export interface RepairDevice {
  id: string;
  orderId: string;
  make: string | null;
  model: string | null;
  serial: string | null;
  status: string;
}

export interface Order {
  id: string;
  reference: string;
  status: string;
  clientId: string | null;
  clientName: string | null;
  createdAt: Time;
  devices: RepairDevice[];
}

/** The statuses of the built-in handlers and the daemon's own; a plugin may answer any other. */
export type ResolutionStatus =
  | "found" | "not_found" | "invalid"
  | "identified" | "unknown" | "blocked" | "inactive" | "linked" | "conflict" | "unverified"
  | "unhandled" | "error" | "timeout"
  | (string & {});

/**
 * What the handler that took an event answered. The built-in handlers' members are typed;
 * a plugin's own members are `unknown` until the caller checks them.
 */
export interface Resolution {
  /** `product-lookup`, `card-link`, `order-lookup`, a plugin's name, or null (no handler took it). */
  handler: string | null;
  status: ResolutionStatus;
  product?: Product;
  gtin?: string;
  embedded?: Embedded;
  /** Why, for `not_found`, `invalid` and `conflict`, in words a cashier can read; for `unverified`, one of `bad-cmac`, `replayed`, `unknown-key`, `no-message`. */
  reason?: string;
  /** card-link: whether the tap's Secure Unique NFC message verified, when it carried one or the card is secure. */
  verified?: boolean;
  card?: Card;
  customer?: Customer;
  order?: Order;
  device?: RepairDevice;
  /** What went wrong, for `error`. */
  message?: string;
  /** Resolved from this counter's copy while the shop's shared store cannot be reached. */
  offline?: boolean;
  [member: string]: unknown;
}

export interface ScanEvent {
  /** Strictly increasing and gap-free over the daemon's life, restarts included. */
  seq: number;
  id: string;
  time: Time;
  /** The id of the device that read it. */
  device: string;
  driver: string;
  kind: ReadingKind;
  symbology: Symbology;
  /** The decoded content; for an NFC tap, the UID in hex unless the card gave a text. */
  text: string;
  /** The AIM symbology identifier (`]E0`). */
  aim?: string;
  /** Base64 of the raw bytes, when they are not `text`'s. */
  raw?: string;
  uid?: string;
  uidDisplay?: string;
  atr?: string;
  cardType?: string;
  ndef?: { type: string; value: string }[];
  /** Application identifier to value, for GS1 content. */
  gs1?: Record<string, string>;
  gtin?: string;
  embedded?: Embedded;
  /** An NFC tap whose URL carried a Secure Unique NFC message. */
  sun?: SUNReading;
  resolution: Resolution;
}

export interface Candidate {
  id: string;
  driver: string;
  name?: string;
  /** `vvvv:pppp`. */
  usb?: string;
  path: string;
  read: boolean;
  reason: string;
}

// ---- What a caller sends ----

/** A product as `products.upsert` and `products.stage` take it. */
export interface ProductInput {
  /** Derived from the barcode or SKU when left out. */
  id?: string;
  storeId?: string | null;
  name: string;
  /** As many decimals as the currency has, at most: a string is read as written. */
  price: Amount | number;
  /** The daemon's `catalog.currency` when left out. */
  currency?: string;
  sku?: string;
  category?: string;
  barcode?: string;
  trackStock?: boolean;
  allowNegativeStock?: boolean;
  quantity?: number;
  lowStockThreshold?: number;
  parentId?: string;
  variant?: string;
}

export interface OrderInput {
  id: string;
  reference: string;
  status?: string;
  clientId?: string;
  clientName?: string;
  createdAt?: Time;
  /** Given, the order gets exactly these; left out, it keeps its own. */
  devices?: { id: string; make?: string; model?: string; serial?: string; status?: string }[];
}

export interface CustomerInput {
  walletAddress: string;
  name?: string;
  email?: string;
  phone?: string;
  milestones?: { firstPaymentAt?: Time; autoSignEnabledAt?: Time };
}

/** One of a batch or one alone, never both. */
type OneOrMany<Name extends string, Names extends string, Item> =
  | ({ [K in Name]: Item } & { [K in Names]?: never })
  | ({ [K in Names]: Item[] } & { [K in Name]?: never });

type Empty = Record<string, never>;

/** `products.lookup`'s answer: what `product-lookup` resolves a scan of the code to. */
export type ProductLookup =
  | { status: "found"; product: Product; gtin?: string; embedded?: Embedded; offline?: boolean }
  | { status: "not_found" | "invalid"; reason: string; gtin?: string; embedded?: Embedded; offline?: boolean };

/** `orders.lookup`'s answer: what `order-lookup` resolves a scan of the code to. */
export type OrderLookup =
  | { status: "found"; order: Order; device?: RepairDevice; offline?: boolean }
  | { status: "not_found" | "invalid"; reason: string; offline?: boolean };

export interface Hello {
  name: "scanbridge";
  version: string;
  protocol: number;
  role: Role;
  drivers: string[];
  /** Built-in and registered, in routing order. */
  handlers: string[];
  journal: { walBytes: number; pruneFailures: number; checkpointFailures: number; spooled: number };
  counter: string;
  store: { kind: "sqlite" | "postgresql"; state: "ok" | "offline"; copyLag: number; problem?: string };
}

interface ClaimedAndReleased {
  claimed: string[];
  released: string[];
}

/**
 * Every method the gateway serves to this client, with its params and result
 * (docs/protocol.md, Methods). Left out: `tokens.*` and `store.migrate`, which the gateway
 * refuses, and `handlers.register`, since this client answers no daemon request.
 */
export interface Methods {
  "bridge.hello": { params: { client?: { name: string; version: string } }; result: Hello };
  "devices.list": { params: Empty; result: { devices: Device[] } };
  "devices.candidates": { params: Empty; result: ClaimedAndReleased & { candidates: Candidate[] } };
  "devices.claim": { params: { id: string }; result: ClaimedAndReleased };
  "devices.release": { params: { id: string }; result: ClaimedAndReleased };
  "devices.reset": {
    params: { id: string };
    result: { id: string; usb: string; path: string; reenumerated: boolean };
  };
  "events.subscribe": { params: SubscribeFilter; result: { subscription: string; seq: number } };
  "events.unsubscribe": { params: { subscription: string }; result: Empty };
  "events.recent": { params: { limit?: number; kinds?: ReadingKind[] }; result: { events: ScanEvent[] } };
  "events.ticket": { params: Empty; result: { ticket: string; expiresAt: Time } };
  "scan.inject": {
    params: { device: string; text?: string; uid?: string; symbology?: Symbology; raw?: string };
    result: { event: ScanEvent };
  };
  "mock.attach": { params: { kind: ReadingKind; id?: string; name?: string }; result: { device: Device } };
  "mock.detach": { params: { id: string }; result: Empty };
  "products.lookup": { params: { code: string }; result: ProductLookup };
  "products.upsert": {
    params: OneOrMany<"product", "products", ProductInput>;
    result: { products: Product[]; notVisibleHere: string[] };
  };
  "products.delete": { params: { id: string }; result: Empty };
  "products.list": {
    params: { storeId?: string; after?: string; limit?: number };
    result: { products: Product[]; next: string | null };
  };
  "products.stage": { params: OneOrMany<"product", "products", ProductInput>; result: { staged: number } };
  "products.commit": {
    params: { prune?: boolean };
    result: { storeId: string | null; stored: number; deleted: number };
  };
  "cards.link": {
    params: { uid: string; walletAddress: string; cardName?: string; security?: CardSecurity };
    result: { card: Card; customer: Customer };
  };
  "cards.arm": {
    params: { walletAddress: string; cardName?: string; device?: string; timeoutMs?: number; security?: CardSecurity };
    result: { armed: string; expiresAt: Time };
  };
  "cards.disarm": { params: { armed: string }; result: Empty };
  "cards.get": { params: { uid: string }; result: { card: Card } };
  "cards.list": { params: { walletAddress?: string }; result: { cards: Card[] } };
  "cards.setStatus": { params: { uid: string; status: CardStatus }; result: { card: Card } };
  "cards.unlink": { params: { uid: string }; result: Empty };
  "customers.get": { params: { walletAddress: string }; result: { customer: Customer } };
  "customers.upsert": { params: { customer: CustomerInput }; result: { customer: Customer } };
  "customers.erase": {
    params: { walletAddress: string };
    result: { erased: true; cardsUnlinked: number; eventsRewritten: number };
  };
  "orders.lookup": { params: { code: string }; result: OrderLookup };
  "orders.upsert": { params: OneOrMany<"order", "orders", OrderInput>; result: { orders: Order[] } };
}

export type Method = keyof Methods;
export type ParamsOf<M extends Method> = Methods[M]["params"];
export type ResultOf<M extends Method> = Methods[M]["result"];

/** The notifications a subscription brings, with their params. */
export interface Notifications {
  scan: { subscription: string; event: ScanEvent };
  "device.added": { subscription: string; device: Device };
  "device.removed": { subscription: string; device: Device };
  "device.changed": { subscription: string; device: Device };
  "events.gap": { subscription: string; from: number; to: number };
  "events.overflow": { subscription: string; dropped: number };
}

// ---- The client ----

/** A JSON-RPC error answered by the daemon, or a call the client gave up on. */
export declare class RPCError extends Error {
  constructor(code: number, message: string, data?: unknown);
  readonly name: "RPCError";
  /** The JSON-RPC code: the daemon's (docs/protocol.md, Errors), `CONNECTION_LOST` or `TIMED_OUT`. */
  readonly code: number;
  /** The daemon's `data`: `{field}` for `-32602`. */
  readonly data: unknown;
}

/** The code of a call whose connection was lost before its answer, or whose client was closed. */
export declare const CONNECTION_LOST: -32099;
/** The code of a call that had no answer within its timeout. */
export declare const TIMED_OUT: -32098;
/** How long a call waits, for the connection and its answer, when it names no timeout. */
export declare const CALL_TIMEOUT_MS: 30000;

export interface CallOptions {
  /**
   * Milliseconds to wait for the connection and the answer together; `CALL_TIMEOUT_MS` when
   * left out, `Infinity` for no bound. Past it the call rejects with `TIMED_OUT`; the daemon
   * may still carry out a call it was sent.
   */
  timeout?: number;
  /** Rejects the call with the signal's reason when it aborts. */
  signal?: AbortSignalLike;
}

/** What `call` needs of an AbortSignal; the browser's and Node's are one. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** What `connect` needs of a WebSocket class: the browser's, Node's, or one alike. */
export type WebSocketClass = new (url: string, protocols: string[]) => {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: unknown;
  onmessage: unknown;
  onclose: unknown;
  onerror: unknown;
};

export interface ConnectOptions {
  /** The daemon's address: `http`, `https`, `ws` or `wss`; a bare origin gets `/v1/ws`. */
  url: string;
  /** A gateway token (`sbt_…`), carried in the WebSocket's subprotocols. */
  token?: string;
  /** Where there is no global WebSocket. */
  WebSocket?: WebSocketClass;
}

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export interface SubscribeFilter {
  kinds?: ReadingKind[];
  /** Device ids; they need not exist yet. */
  devices?: string[];
  /** The seq of the last scan handled: the subscription replays what came after it. */
  since?: number;
}

/** What a subscription hands its callback. */
export type SubscriptionEvent =
  | { type: "scan"; event: ScanEvent }
  | { type: "device.added" | "device.removed" | "device.changed"; device: Device }
  /** Scans `from` to `to` were asked for by `since` but the journal no longer keeps them. */
  | { type: "gap"; from: number; to: number }
  /** The daemon refused the subscription (a bad filter, too many subscriptions). */
  | { type: "error"; error: RPCError };

/** A notification's method and params, as `onNotification` hears them. */
export type NotificationArguments = { [M in keyof Notifications]: [method: M, params: Notifications[M]] }[keyof Notifications];

/** Params may be left out where every member is optional. */
type CallArguments<M extends Method> = {} extends ParamsOf<M>
  ? [params?: ParamsOf<M>, options?: CallOptions]
  : [params: ParamsOf<M>, options?: CallOptions];

/** Opens a client; it connects at once and reconnects by itself until `close()`. */
export declare function connect(options: ConnectOptions): Client;

/** One connection to the daemon's gateway, remade after every loss. */
export declare class Client {
  constructor(options: ConnectOptions);
  readonly state: ConnectionState;
  /**
   * Calls a method: resolves with its result, rejects with an `RPCError` (the daemon's, or
   * `CONNECTION_LOST`, or `TIMED_OUT`) or with the signal's reason. A call made while the
   * client connects or reconnects waits for it, within its timeout. A call is never sent
   * twice.
   */
  call<M extends Method>(method: M, ...args: CallArguments<M>): Promise<ResultOf<M>>;
  /** Hears every notification as it comes; returns what stops it. */
  onNotification(listener: (...notification: NotificationArguments) => void): () => void;
  /** Hears the connection's state, with the reconnect attempt; returns what stops it. */
  onStateChange(listener: (state: ConnectionState, detail: { attempt: number }) => void): () => void;
  /** Every scan once, in order, across reconnects; device changes; gaps. */
  subscribe(filter: SubscribeFilter, onEvent: (event: SubscriptionEvent) => void): Subscription;
  /** Closes for good: pending calls reject with `CONNECTION_LOST`, subscriptions end. */
  close(): void;
}

/** A subscription that keeps its place across reconnects; made by `Client.subscribe`. */
export declare class Subscription {
  private constructor();
  /** The seq of the last scan delivered, or null before the first subscription's answer. */
  readonly lastSeq: number | null;
  close(): void;
}

/** The gateway's WebSocket address for a daemon's address. */
export declare function webSocketURL(url: string): string;
/** The subprotocols a WebSocket offers to carry a token. */
export declare function webSocketProtocols(token?: string): string[];
