// Holds Web/scanbridge.d.mts to contract/openrpc.json, read through TypeScript's own checker
// (so aliases, intersections and unions count as a caller sees them):
//   - `Methods` names exactly the contract's methods a gateway client may call, and each one's
//     params and result have the contract's members, required where the contract requires them;
//   - `Notifications` names exactly the contract's notifications, with their params;
//   - each typed shape (Device, ScanEvent…) has the members of the schema of the same name.
// Only the top level of each is compared: nested shapes are compared under their own names.
// Usage: node Tests/ClientTypes/contract.mjs [TYPESCRIPT_MODULE_DIR], from the repository's root.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const ts = createRequire(import.meta.url)(process.argv[2] ?? "typescript");
const contract = JSON.parse(readFileSync("contract/openrpc.json", "utf8"));
const schemas = contract.components.schemas;

// Served, but not for this client: the gateway refuses the socket-only methods whatever the
// token, and registering a handler needs a client that answers daemon requests, which this one
// does not.
const notForThisClient = new Set(["handlers.register"]);
const shapes = [
  "Device", "Candidate", "ScanEvent", "Resolution", "Product", "Card", "Milestones", "Customer", "RepairDevice",
  "Order", "Hello", "ProductInput", "OrderInput", "CustomerInput",
];

const file = "Web/scanbridge.d.mts";
const program = ts.createProgram([file], {
  strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
});
const checker = program.getTypeChecker();
const exported = new Map(
  checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))).map((s) => [s.name, s]),
);
const problems = [];

/** name → required, for a TypeScript type; a union's member is required where every branch requires it. */
function typed(type) {
  if (type.isUnion()) {
    const branches = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).map(typed);
    return merge(branches);
  }
  const members = new Map();
  for (const property of checker.getPropertiesOfType(type)) {
    members.set(property.name, !(property.flags & ts.SymbolFlags.Optional));
  }
  return members;
}

/** name → required, for a schema of the contract, through $ref, allOf and anyOf. */
function described(schema) {
  if (schema.$ref) return described(schemas[schema.$ref.split("/").pop()]);
  const members = new Map(Object.keys(schema.properties ?? {}).map((key) => [key, (schema.required ?? []).includes(key)]));
  for (const part of schema.allOf ?? []) {
    for (const [key, required] of described(part)) members.set(key, members.get(key) || required);
  }
  if (schema.anyOf) {
    for (const [key, required] of merge(schema.anyOf.map(described))) members.set(key, members.get(key) || required);
  }
  return members;
}

function merge(branches) {
  const members = new Map();
  for (const key of new Set(branches.flatMap((branch) => [...branch.keys()]))) {
    members.set(key, branches.every((branch) => branch.get(key) === true));
  }
  return members;
}

function byName(params) {
  return new Map(params.map((param) => [param.name, param.required === true]));
}

function compare(what, types, contract) {
  for (const [key, required] of contract) {
    if (!types.has(key)) problems.push(`${what}: the contract's ${key} is not typed`);
    else if (types.get(key) !== required) {
      problems.push(`${what}: ${key} is ${required ? "required" : "optional"} in the contract, not in the types`);
    }
  }
  for (const key of types.keys()) if (!contract.has(key)) problems.push(`${what}: ${key} is typed, not in the contract`);
}

function interfaceMembers(name) {
  const symbol = exported.get(name);
  if (!symbol) {
    problems.push(`${file} exports no ${name}`);
    return new Map();
  }
  return new Map(checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((p) => [p.name, p]));
}

function memberType(symbol, key) {
  return checker.getTypeOfSymbol(checker.getPropertiesOfType(checker.getTypeOfSymbol(symbol)).find((p) => p.name === key));
}

const methods = interfaceMembers("Methods");
const callable = contract.methods.filter((m) => !m["x-socket-only"] && !notForThisClient.has(m.name));
compare("Methods", new Map([...methods.keys()].map((k) => [k, true])), new Map(callable.map((m) => [m.name, true])));
for (const method of callable.filter((m) => methods.has(m.name))) {
  const symbol = methods.get(method.name);
  compare(`${method.name} params`, typed(memberType(symbol, "params")), byName(method.params));
  compare(`${method.name} result`, typed(memberType(symbol, "result")), described(method.result.schema));
}

const notifications = interfaceMembers("Notifications");
const sent = contract["x-notifications"];
compare("Notifications", new Map([...notifications.keys()].map((k) => [k, true])), new Map(sent.map((n) => [n.name, true])));
for (const notification of sent.filter((n) => notifications.has(n.name))) {
  compare(notification.name, typed(checker.getTypeOfSymbol(notifications.get(notification.name))), byName(notification.params));
}

for (const shape of shapes) {
  if (!schemas[shape]) problems.push(`contract/openrpc.json has no schema ${shape}`);
  else if (exported.has(shape)) compare(shape, typed(checker.getDeclaredTypeOfSymbol(exported.get(shape))), described(schemas[shape]));
  else problems.push(`${file} exports no ${shape}`);
}

if (problems.length) {
  console.error(`${file} disagrees with contract/openrpc.json:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`${methods.size} methods, ${notifications.size} notifications and ${shapes.length} shapes agree with the contract`);
