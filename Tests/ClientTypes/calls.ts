// What Web/scanbridge.d.mts lets a TypeScript caller write, and what it refuses. Compiled
// with --strict by scripts/check-types.sh, with no DOM library, as Node code is. Each
// `@ts-expect-error` must meet an error on the line below it, else tsc fails ("Unused
// '@ts-expect-error' directive"): that is what holds the types to refusing these calls.
import {
  connect,
  RPCError,
  Subscription,
  CALL_TIMEOUT_MS,
  CONNECTION_LOST,
  TIMED_OUT,
  type AbortSignalLike,
  type Device,
  type Hello,
  type ProductLookup,
  type ScanEvent,
} from "scanbridge";

/** True when A and B are the same type, not merely assignable. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectTrue<T extends true>(): void {}
function expectType<T>(value: T): T {
  return value;
}

// Node before 22 has no WebSocket of its own: a class of the same shape is taken.
declare class NodeWebSocket {
  constructor(url: string, protocols?: string | string[]);
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: object) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: object) => void) | null;
  onerror: ((event: object) => void) | null;
}
const client = connect({ url: "ws://127.0.0.1:8765", token: "sbt_x", WebSocket: NodeWebSocket });
declare const signal: AbortSignalLike;

expectTrue<Equal<typeof CALL_TIMEOUT_MS, 30000>>();
expectTrue<Equal<typeof TIMED_OUT | typeof CONNECTION_LOST, -32098 | -32099>>();

export async function results(): Promise<void> {
  // Each method's result is its own type.
  const lookup = await client.call("products.lookup", { code: "5901234123457" });
  expectTrue<Equal<typeof lookup, ProductLookup>>();
  if (lookup.status === "found") expectType<string>(lookup.product.price);
  else expectType<string>(lookup.reason);
  // @ts-expect-error: a product comes only with `found`
  lookup.product.name;

  expectType<Hello>(await client.call("bridge.hello"));
  expectType<Device[]>((await client.call("devices.list")).devices);
  const order = await client.call("orders.lookup", { code: "RM-1001" }, { timeout: 2_000, signal });
  if (order.status === "found") expectType<string>(order.order.reference);
  const { products, notVisibleHere } = await client.call("products.upsert", { products: [{ name: "Tea", price: 2 }] });
  expectType<string | null>(products[0].gtin);
  expectType<string[]>(notVisibleHere);
  // @ts-expect-error: an answer is not `any`
  expectType<number>((await client.call("cards.get", { uid: "04A1B2C3" })).card);

  try {
    await client.call("devices.list", {}, { timeout: Infinity });
  } catch (error) {
    if (error instanceof RPCError && (error.code === TIMED_OUT || error.code === CONNECTION_LOST)) return;
  }
}

export function refusedCalls(): void {
  // @ts-expect-error: a code is a string
  client.call("products.lookup", { code: 5901234123457 });
  // @ts-expect-error: a lookup needs its code
  client.call("products.lookup", {});
  // @ts-expect-error: and its params
  client.call("products.lookup");
  // @ts-expect-error: a member the method does not take
  client.call("products.lookup", { code: "1", store: "leeds" });
  // @ts-expect-error: no such method
  client.call("products.find", { code: "1" });
  // @ts-expect-error: the gateway serves tokens.* to no one
  client.call("tokens.list");
  // @ts-expect-error: one product or a batch, not both
  client.call("products.upsert", { product: { name: "Tea", price: "2.00" }, products: [] });
  // @ts-expect-error: a product needs its name
  client.call("products.upsert", { product: { price: "2.00" } });
  // @ts-expect-error: a card is active, inactive or blocked
  client.call("cards.setStatus", { uid: "04A1B2C3", status: "lost" });
  // @ts-expect-error: a timeout is milliseconds
  client.call("devices.list", {}, { timeout: "5s" });
  // @ts-expect-error: a kind the daemon does not read
  client.subscribe({ kinds: ["rfid"] }, () => {});
  // @ts-expect-error: a subscription is made by its client
  new Subscription();
}

export function events(): void {
  const subscription = client.subscribe({ since: 0 }, (update) => {
    if (update.type === "scan") expectType<ScanEvent>(update.event);
    else if (update.type === "gap") expectType<number>(update.to);
    else if (update.type === "error") expectType<RPCError>(update.error);
    else expectType<Device>(update.device);
  });
  expectType<number | null>(subscription.lastSeq);
  // @ts-expect-error: the client keeps it
  subscription.lastSeq = 3;

  client.onNotification((method, params) => {
    if (method === "scan") expectType<number>(params.event.seq);
    if (method === "events.overflow") expectType<number>(params.dropped);
    // @ts-expect-error: a device notification has no event
    if (method === "device.added") params.event;
  });
  client.onStateChange((state) => {
    // @ts-expect-error: the states are four
    if (state === "failed") return;
  });
}
