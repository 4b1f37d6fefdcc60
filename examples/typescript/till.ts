// A till's front end on the typed client: it follows the scans, adds what they find to the
// basket, and looks up a code the cashier types. Built as a front end would be, with
// `import … from "scanbridge"` (Web/package.json); tsconfig.json maps that name to Web/ so
// that scripts/check-types.sh compiles it, strictly, against the very files published.
import { connect, RPCError, TIMED_OUT, type Product, type ScanEvent } from "scanbridge";

const bridge = connect({ url: "http://127.0.0.1:8765", token: sessionStorage.getItem("till.token") ?? undefined });

const basket: Product[] = [];
const say = (words: string) => console.log(words);

bridge.onStateChange((state, { attempt }) => say(state === "reconnecting" ? `reconnecting (${attempt})` : state));

function take(event: ScanEvent) {
  const { resolution } = event;
  if (resolution.product && resolution.status === "found") {
    if (resolution.product.canSell) basket.push(resolution.product);
    else say(`${resolution.product.name} is out of stock`);
  } else if (resolution.handler === "card-link" && resolution.status === "identified") {
    say(`customer: ${resolution.customer?.name ?? resolution.card?.displayName ?? "unknown"}`);
  } else if (resolution.reason) {
    say(`${event.text}: ${resolution.reason}`);
  }
}

// After a reload the till picks up from the last scan it handled.
const saved = localStorage.getItem("till.lastSeq");
bridge.subscribe({ kinds: ["barcode", "nfc"], since: saved === null ? undefined : Number(saved) }, (update) => {
  switch (update.type) {
    case "scan":
      take(update.event);
      localStorage.setItem("till.lastSeq", String(update.event.seq));
      break;
    case "device.removed":
      say(`${update.device.name} was unplugged`);
      break;
    case "gap":
      say(`scans ${update.from} to ${update.to} are no longer kept`);
      break;
    case "error":
      say(`the daemon refused the subscription: ${update.error.message}`);
      break;
  }
});

// A typed code: the cashier waits for it, so it gets 5 s rather than the default 30, and a
// new code typed meanwhile abandons the lookup of the last one.
let typing: AbortController | null = null;

export async function lookUp(code: string): Promise<void> {
  typing?.abort();
  const mine = new AbortController();
  typing = mine;
  try {
    const found = await bridge.call("products.lookup", { code }, { timeout: 5_000, signal: mine.signal });
    if (found.status === "found") basket.push(found.product);
    else say(`${code}: ${found.reason}`);
  } catch (error) {
    if (mine.signal.aborted) return;
    if (error instanceof RPCError && error.code === TIMED_OUT) say("the scanner service is not answering; try again");
    else throw error;
  }
}

export async function checkDaemon(): Promise<void> {
  const hello = await bridge.call("bridge.hello", { client: { name: "till", version: "1.0.0" } });
  if (hello.protocol !== 1) say(`this till speaks protocol 1, the daemon ${hello.protocol}`);
  const { devices } = await bridge.call("devices.list");
  for (const device of devices) if (device.state === "error") say(`${device.name}: ${device.error}`);
}
